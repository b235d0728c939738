import type { PluralForm, Translation } from '../elements/shared/translation.js';

const files = (form: PluralForm) => (form === 'one' ? 'bestand' : 'bestanden');

/** Dutch (Nederlands). */
const nl: Translation = {
  $code: 'nl',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Sleep bestanden hierheen, of',
    dropzoneFolders: 'Sleep bestanden of mappen hierheen, of',
    browse: 'kies bestanden',
    or: 'of',
    browseFolder: 'kies een map',
    takePhoto: 'Maak een foto',
    dropHere: 'Laat de bestanden los om ze te uploaden',
    hintTypes: (types) => `Toegestaan: ${types}.`,
    hintMaxSize: (size) => `Maximaal ${size} per bestand.`,
    hintMaxFiles: (count, form) => `Hoogstens ${count} ${files(form)}.`,
    hintFilesLeft: (count, form) => `Nog ${count} ${files(form)} mogelijk.`,
    hintBytesLeft: (size) => `Nog ${size} over in totaal.`,
    hintPaste: 'Je kunt ook bestanden plakken.',
    queued: 'Wacht op uploaden',
    preparing: 'Voorbereiden…',
    uploading: (percent) => `Uploaden… ${percent}`,
    timeLeft: (duration) => `nog ${duration}`,
    finishing: 'Afronden…',
    done: 'Geüpload',
    retrying: (seconds) => `Nieuwe poging over ${seconds} s…`,
    paused: 'Gepauzeerd',
    upload: 'Uploaden',
    retry: 'Opnieuw',
    cancel: 'Annuleren',
    remove: 'Verwijderen',
    cancelAll: 'Alles annuleren',
    pauseUpload: 'Pauzeren',
    resumeUpload: 'Hervatten',
    pauseAllUploads: 'Alles pauzeren',
    resumeAllUploads: 'Alles hervatten',
    pauseLabel: (name) => `Uploaden van ${name} pauzeren`,
    resumeLabel: (name) => `Uploaden van ${name} hervatten`,
    retryLabel: (name) => `${name} opnieuw uploaden`,
    cancelLabel: (name) => `Uploaden van ${name} annuleren`,
    removeLabel: (name) => `${name} verwijderen`,
    fileListLabel: 'Bestanden',
    openFile: (name) => `${name} openen (in een nieuw tabblad)`,
    total: (done, count, percent) => `${done} van ${count} geüpload · ${percent}`,
    announceAdded: (count, form) => `${count} ${files(form)} toegevoegd.`,
    announceDone: (name) => `${name} geüpload.`,
    announceFailed: (name, reason) => `${name} is niet geüpload: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Alle uploads zijn klaar: ${succeeded} geüpload.`
        : `Uploads klaar: ${succeeded} geüpload, ${failed} mislukt.`,
    interrupted: 'Onderbroken. Kies dit bestand opnieuw om verder te gaan waar het stopte.',
    formUploading: 'Wacht tot de uploads klaar zijn.',
    formRequired: 'Upload minstens één bestand.',
    linkLabel: 'Link naar een bestand',
    linkImport: 'Importeren',
    linkInvalid: 'Voer een link in die begint met https:// of http://.',
    importing: (percent) => `Importeren… ${percent}`,
    editorWaiting: 'Klaar om te bewerken of te uploaden',
    editorEdit: 'Bewerken',
    editorEditLabel: (name) => `${name} bewerken`,
    editorUpload: 'Uploaden',
    editorUploadLabel: (name) => `${name} ongewijzigd uploaden`,
    editorTitle: (name) => `${name} bewerken`,
    editorHelp:
      'De pijltjestoetsen verplaatsen het uitsnijkader; Shift met de pijltjestoetsen verandert de grootte. Escape annuleert.',
    editorCropArea: 'Uitsnijkader',
    editorAspect: 'Verhouding',
    editorFree: 'Vrij',
    editorRotateLeft: 'Naar links draaien',
    editorRotateRight: 'Naar rechts draaien',
    editorFlipX: 'Horizontaal spiegelen',
    editorFlipY: 'Verticaal spiegelen',
    editorZoomIn: 'Inzoomen',
    editorZoomOut: 'Uitzoomen',
    editorReset: 'Herstellen',
    editorSave: 'Opslaan',
    editorAnnounce: (degrees, width, height) =>
      `${degrees} graden gedraaid. Uitsnijkader van ${width} × ${height} pixels.`,
    formHeld: 'Bewerk of upload eerst de afbeeldingen die wachten.',
    editorUnreadable: (name) =>
      `${name} kon niet worden geopend om te bewerken. Upload het ongewijzigd.`,
  },
  list: {
    listLabel: 'Geüploade bestanden',
    loading: 'Bestanden laden…',
    empty: 'Nog geen bestanden.',
    emptyHint: 'Bestanden die je uploadt verschijnen hier, de nieuwste eerst.',
    loadMore: 'Meer laden',
    loadingMore: 'Meer laden…',
    end: (count, form) =>
      form === 'one' ? 'Dit is het enige bestand.' : `Dit zijn alle ${count} bestanden.`,
    retry: 'Opnieuw proberen',
    copyLink: 'Link kopiëren',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Gekopieerd',
    copyFailed: 'Kopiëren mislukt',
    pending: 'Uploaden…',
    openFile: (name) => `${name} (opent in een nieuw tabblad)`,
    uploadedAt: (when) => `Geüpload ${when}`,
    announceLoaded: (count, form) => `${count} ${files(form)} getoond.`,
    announceAdded: (name) => `${name} aan de lijst toegevoegd.`,
    announceCopied: (name) => `Link naar ${name} gekopieerd.`,
    errorTitle: 'De bestanden konden niet worden geladen.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Deze pagina (${origin}) mag deze sleutel niet gebruiken. De toegestane origins van de sleutel moeten ${origin} bevatten.`,
    invalid_key: () => 'De sleutel is niet herkend. Controleer de instelling api-key.',
    missing_auth: () => 'Er is geen sleutel ingesteld. Geef een publieke sleutel op (api-key).',
    secret_key: () =>
      'Er is een geheime sleutel opgegeven, en die mag nooit in een webpagina staan. Gebruik de publieke sleutel (pk_live_…).',
    no_endpoint: () => 'Er is geen adres ingesteld. Geef het API-adres op (endpoint).',
    too_large: ({ limit }) => `Dit bestand is te groot. De limiet is ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Te veel verzoeken in korte tijd. Probeer het over ${seconds} ${form === 'one' ? 'seconde' : 'seconden'} opnieuw.`,
    empty_body: () => 'Dit bestand is leeg, dus er valt niets te uploaden.',
    network_error: () =>
      'De verbinding is verbroken. Controleer haar en probeer het opnieuw; uploads gaan verder waar ze stopten.',
    script_missing: () =>
      'Er ontbreekt een bestand dat deze uploader nodig heeft. De pagina moet worden aangepast: laat het de beheerder van de site weten.',
    type_not_allowed: ({ accept }) =>
      `Dit soort bestand wordt hier niet geaccepteerd. Toegestaan: ${accept}.`,
    too_many_files: ({ max, form }) => `Je kunt hoogstens ${max} ${files(form)} toevoegen.`,
    duplicate_file: () => 'Dit bestand staat al in de lijst.',
    upload_expired: () =>
      'Deze upload is verlopen voordat hij klaar was. Probeer opnieuw om hem opnieuw te starten.',
    refused: ({ code }) =>
      `De bestandsdienst heeft dit verzoek geweigerd (${code}). De pagina moet worden aangepast: laat het de beheerder van de site weten.`,
    not_found: () => 'Op dit adres is niets gevonden. Controleer de instelling endpoint.',
    internal_error: () => 'De bestandsdienst had een probleem. Probeer het zo meteen opnieuw.',
    unavailable: ({ seconds, form }) =>
      `De bestandsdienst is nu druk. Probeer het over ${seconds} ${form === 'one' ? 'seconde' : 'seconden'} opnieuw.`,
    quota_exceeded: () =>
      'Er is geen ruimte voor dit bestand: de opslag van de site is vol of heeft te veel onafgemaakte uploads. Probeer het later opnieuw of laat het de beheerder van de site weten.',
    damaged: () =>
      'Een deel van het bestand kwam beschadigd of onvolledig aan. Probeer opnieuw; is het bestand intussen veranderd, kies het dan opnieuw.',
    link_expired: () =>
      'De link van deze upload is niet meer geldig. Probeer opnieuw om een nieuwe te krijgen.',
    upload_conflict: () =>
      'Deze upload is al afgerond, misschien in een ander tabblad. Kies het bestand opnieuw om het opnieuw te uploaden.',
    insufficient_storage: () =>
      'De bestandsdienst heeft nu geen ruimte en heeft niets bewaard. Probeer het later opnieuw.',
    token_expired: () =>
      'Je toestemming om te uploaden is verlopen. Laad de pagina opnieuw of log opnieuw in, en probeer het dan nog eens.',
    token_provider_failed: () =>
      'Deze pagina kon geen toestemming krijgen om te uploaden. Probeer het opnieuw of laad de pagina opnieuw; blijft het mislukken, laat het dan de beheerder van de site weten.',
    token_exhausted: () =>
      'Je hebt de grens bereikt van het aantal bestanden of de hoeveelheid gegevens die je hier mag uploaden, dus dit bestand is niet verstuurd.',
    upload_token_required: () =>
      'Deze site neemt alleen uploads aan van mensen die ze daarvoor toestemming heeft gegeven, en deze pagina heeft die toestemming niet gekregen. Log in, of laat het de eigenaar van de site weten.',
    infected: () =>
      'Een virusscan vond malware in dit bestand: het is geweigerd en er is niets bewaard.',
    metadata_unreadable: () =>
      'De locatie kon niet veilig uit deze foto worden verwijderd, dus er is niets bewaard. Sla een kopie zonder locatie op en probeer het opnieuw.',
    unscannable: () =>
      'De virusscan kon dit bestand niet volledig controleren (bijvoorbeeld een archief dat uitgepakt te groot wordt): het is geweigerd en er is niets bewaard.',
    import_refused_target: () =>
      'Deze link wijst naar een adres waarvan de bestandsdienst niet mag ophalen. Gebruik een openbare link.',
    import_http_error: () =>
      'De site achter de link gaf het bestand niet. Controleer de link en probeer het opnieuw.',
    import_timeout: () =>
      'De site achter de link deed te lang over het bestand. Probeer het later opnieuw.',
    import_failed: () =>
      'Het bestand kon niet via de link worden opgehaald. Probeer het later opnieuw.',
    import_too_large: ({ limit }) =>
      `Het bestand achter de link is te groot voor deze site.${limit ? ` De limiet is ${limit}.` : ''}`,
    import_unsupported_type: () => 'Dit type bestand wordt hier niet geaccepteerd.',
    unexpected: ({ code, message }) =>
      `Er ging iets mis (${code}).${message ? ` ${message}` : ''} Probeer het opnieuw, nu of later.`,
  },
};

export default nl;
