import type { Translation } from '../elements/shared/translation.js';

/** Italian (italiano). */
const it: Translation = {
  $code: 'it',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Trascina qui i file, oppure',
    dropzoneFolders: 'Trascina qui file o cartelle, oppure',
    browse: 'scegli i file',
    or: 'oppure',
    browseFolder: 'scegli una cartella',
    takePhoto: 'Scatta una foto',
    dropHere: 'Rilascia i file per caricarli',
    hintTypes: (types) => `Formati accettati: ${types}.`,
    hintMaxSize: (size) => `Fino a ${size} per file.`,
    hintMaxFiles: (count) => `Al massimo ${count} file.`,
    hintFilesLeft: (count) => `Puoi caricare ancora ${count} file.`,
    hintBytesLeft: (size) => `Restano ${size} in tutto.`,
    hintPaste: 'Puoi anche incollare i file.',
    queued: 'In attesa di caricamento',
    preparing: 'Preparazione…',
    uploading: (percent) => `Caricamento… ${percent}`,
    timeLeft: (duration, form) => `${form === 'one' ? 'manca' : 'mancano'} ${duration}`,
    finishing: 'Completamento…',
    done: 'Caricato',
    retrying: (seconds) => `Nuovo tentativo tra ${seconds} s…`,
    paused: 'In pausa',
    upload: 'Carica',
    retry: 'Riprova',
    cancel: 'Annulla',
    remove: 'Rimuovi',
    cancelAll: 'Annulla tutto',
    pauseUpload: 'Pausa',
    resumeUpload: 'Riprendi',
    pauseAllUploads: 'Metti tutto in pausa',
    resumeAllUploads: 'Riprendi tutto',
    pauseLabel: (name) => `Metti in pausa il caricamento di ${name}`,
    resumeLabel: (name) => `Riprendi il caricamento di ${name}`,
    retryLabel: (name) => `Riprova il caricamento di ${name}`,
    cancelLabel: (name) => `Annulla il caricamento di ${name}`,
    removeLabel: (name) => `Rimuovi ${name}`,
    fileListLabel: 'File',
    openFile: (name) => `Apri ${name} (in una nuova scheda)`,
    total: (done, count, percent) => `${done} di ${count} caricati · ${percent}`,
    announceAdded: (count, form) => `${count} file ${form === 'one' ? 'aggiunto' : 'aggiunti'}.`,
    announceDone: (name) => `${name} caricato.`,
    announceFailed: (name, reason) => `${name} non è stato caricato: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Caricamenti completati: ${succeeded} riusciti.`
        : `Caricamenti terminati: ${succeeded} riusciti, ${failed} non riusciti.`,
    interrupted: 'Interrotto. Scegli di nuovo questo file per riprendere da dove si era fermato.',
    formUploading: 'Attendi la fine dei caricamenti.',
    formRequired: 'Carica almeno un file.',
    linkLabel: 'Link a un file',
    linkImport: 'Importa',
    linkInvalid: 'Inserisci un link che inizi con https:// o http://.',
    importing: (percent) => `Importazione… ${percent}`,
    editorWaiting: 'Pronta da modificare o caricare',
    editorEdit: 'Modifica',
    editorEditLabel: (name) => `Modifica ${name}`,
    editorUpload: 'Carica',
    editorUploadLabel: (name) => `Carica ${name} così com’è`,
    editorTitle: (name) => `Modifica ${name}`,
    editorHelp:
      'Le frecce spostano l’area di ritaglio; Maiusc con le frecce la ridimensiona. Esc annulla.',
    editorCropArea: 'Area di ritaglio',
    editorAspect: 'Proporzioni',
    editorFree: 'Libere',
    editorRotateLeft: 'Ruota a sinistra',
    editorRotateRight: 'Ruota a destra',
    editorFlipX: 'Rifletti in orizzontale',
    editorFlipY: 'Rifletti in verticale',
    editorZoomIn: 'Ingrandisci',
    editorZoomOut: 'Riduci',
    editorReset: 'Ripristina',
    editorSave: 'Salva',
    editorAnnounce: (degrees, width, height) =>
      `Ruotata di ${degrees} gradi. Area di ritaglio di ${width} × ${height} pixel.`,
    formHeld: 'Modifica o carica prima le immagini in attesa.',
    editorUnreadable: (name) =>
      `Non è stato possibile aprire ${name} per modificarla. Caricala così com’è.`,
  },
  list: {
    listLabel: 'File caricati',
    loading: 'Caricamento dei file…',
    empty: 'Ancora nessun file.',
    emptyHint: 'I file che carichi compaiono qui, dal più recente.',
    loadMore: 'Mostra altri',
    loadingMore: 'Caricamento di altri file…',
    end: (count, form) => (form === 'one' ? 'È l’unico file.' : `Sono tutti i ${count} file.`),
    retry: 'Riprova',
    copyLink: 'Copia link',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Copiato',
    copyFailed: 'Copia non riuscita',
    pending: 'Caricamento…',
    openFile: (name) => `${name} (si apre in una nuova scheda)`,
    uploadedAt: (when) => `Caricato ${when}`,
    announceLoaded: (count, form) => `${count} file ${form === 'one' ? 'mostrato' : 'mostrati'}.`,
    announceAdded: (name) => `${name} aggiunto all’elenco.`,
    announceCopied: (name) => `Link a ${name} copiato.`,
    errorTitle: 'Impossibile caricare i file.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Questa pagina (${origin}) non può usare questa chiave. L’elenco delle origini consentite della chiave deve includere ${origin}.`,
    invalid_key: () => 'Chiave non riconosciuta. Controlla l’impostazione api-key.',
    missing_auth: () => 'Nessuna chiave impostata. Indica una chiave pubblica (api-key).',
    secret_key: () =>
      'È stata indicata una chiave segreta, che non deve mai stare in una pagina web. Usa la chiave pubblica (pk_live_…).',
    no_endpoint: () => 'Nessun indirizzo impostato. Indica l’indirizzo dell’API (endpoint).',
    too_large: ({ limit }) => `Questo file è troppo grande. Il limite è ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Troppe richieste in poco tempo. Riprova tra ${seconds} ${form === 'one' ? 'secondo' : 'secondi'}.`,
    empty_body: () => 'Questo file è vuoto: non c’è nulla da caricare.',
    network_error: () =>
      'Connessione persa. Controllala e riprova; i caricamenti riprendono da dove si erano fermati.',
    script_missing: () =>
      'Manca un file necessario a questo caricatore. La pagina va corretta: avvisa il gestore del sito.',
    type_not_allowed: ({ accept }) =>
      `Questo tipo di file non è accettato qui. Formati accettati: ${accept}.`,
    too_many_files: ({ max }) => `Puoi aggiungere al massimo ${max} file.`,
    duplicate_file: () => 'Questo file è già nell’elenco.',
    upload_expired: () =>
      'Questo caricamento è scaduto prima di finire. Riprova per ricominciarlo.',
    refused: ({ code }) =>
      `Il servizio file ha rifiutato questa richiesta (${code}). La pagina va corretta: avvisa il gestore del sito.`,
    not_found: () =>
      'A questo indirizzo non è stato trovato nulla. Controlla l’impostazione endpoint.',
    internal_error: () => 'Il servizio file ha avuto un problema. Riprova tra un momento.',
    unavailable: ({ seconds, form }) =>
      `Il servizio file è occupato in questo momento. Riprova tra ${seconds} ${form === 'one' ? 'secondo' : 'secondi'}.`,
    quota_exceeded: () =>
      'Non c’è spazio per questo file: lo spazio del sito è pieno o ha troppi caricamenti non finiti. Riprova più tardi o avvisa il gestore del sito.',
    damaged: () =>
      'Una parte del file è arrivata danneggiata o incompleta. Riprova; se nel frattempo il file è cambiato, sceglilo di nuovo.',
    link_expired: () =>
      'Il link di questo caricamento non è più valido. Riprova per ottenerne uno nuovo.',
    upload_conflict: () =>
      'Questo caricamento è già stato completato, forse in un’altra scheda. Scegli di nuovo il file per caricarlo da capo.',
    insufficient_storage: () =>
      'Il servizio file al momento non ha spazio e non ha salvato nulla. Riprova più tardi.',
    token_expired: () =>
      'Il permesso di caricare file è scaduto. Ricarica la pagina o accedi di nuovo, poi riprova.',
    token_provider_failed: () =>
      'Questa pagina non è riuscita a ottenere il permesso di caricare file. Riprova o ricarica la pagina; se continua a non funzionare, avvisa il gestore del sito.',
    token_exhausted: () =>
      'Hai raggiunto il limite di file o di dati che puoi caricare qui, quindi questo file non è stato inviato.',
    upload_token_required: () =>
      'Questo sito accetta caricamenti solo dalle persone che ha autorizzato, e questa pagina non ha ricevuto l’autorizzazione. Accedi, oppure avvisa il gestore del sito.',
    infected: () =>
      'Un controllo antivirus ha trovato malware in questo file: è stato rifiutato e non è stato conservato nulla.',
    metadata_unreadable: () =>
      'Non è stato possibile rimuovere con certezza la posizione da questa foto, quindi non è stato conservato nulla. Salva una copia senza posizione e riprova.',
    unscannable: () =>
      'Il controllo antivirus non è riuscito a verificare questo file fino in fondo (forse un archivio che si espande troppo): è stato rifiutato e non è stato conservato nulla.',
    import_refused_target: () =>
      'Questo link punta a un indirizzo da cui il servizio file non può scaricare. Usa un link pubblico.',
    import_http_error: () =>
      'Il sito del link non ha fornito il file. Controlla il link e riprova.',
    import_timeout: () =>
      'Il sito del link ha impiegato troppo tempo a inviare il file. Riprova più tardi.',
    import_failed: () => 'Non è stato possibile scaricare il file dal link. Riprova più tardi.',
    import_too_large: ({ limit }) =>
      `Il file del link è troppo grande per questo sito.${limit ? ` Il limite è ${limit}.` : ''}`,
    import_unsupported_type: () => 'Questo tipo di file non è accettato qui.',
    unexpected: ({ code, message }) =>
      `Si è verificato un errore (${code}).${message ? ` ${message}` : ''} Riprova ora o più tardi.`,
  },
};

export default it;
