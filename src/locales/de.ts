import type { Translation } from '../elements/shared/translation.js';

/** German (Deutsch). */
const de: Translation = {
  $code: 'de',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Dateien hierher ziehen oder',
    dropzoneFolders: 'Dateien oder Ordner hierher ziehen oder',
    browse: 'Dateien auswählen',
    or: 'oder',
    browseFolder: 'einen Ordner auswählen',
    takePhoto: 'Foto aufnehmen',
    dropHere: 'Dateien loslassen, um sie hochzuladen',
    hintTypes: (types) => `Erlaubt: ${types}.`,
    hintMaxSize: (size) => `Je Datei bis ${size}.`,
    hintMaxFiles: (count, form) => `Höchstens ${count} ${form === 'one' ? 'Datei' : 'Dateien'}.`,
    hintFilesLeft: (count, form) =>
      `Noch ${count} ${form === 'one' ? 'Datei' : 'Dateien'} möglich.`,
    hintBytesLeft: (size) => `Insgesamt noch ${size} frei.`,
    hintPaste: 'Dateien können auch eingefügt werden.',
    queued: 'Wartet auf das Hochladen',
    preparing: 'Wird vorbereitet…',
    uploading: (percent) => `Wird hochgeladen… ${percent}`,
    timeLeft: (duration) => `noch ${duration}`,
    finishing: 'Wird abgeschlossen…',
    done: 'Hochgeladen',
    retrying: (seconds) => `Neuer Versuch in ${seconds} s…`,
    paused: 'Angehalten',
    upload: 'Hochladen',
    retry: 'Erneut versuchen',
    cancel: 'Abbrechen',
    remove: 'Entfernen',
    cancelAll: 'Alle abbrechen',
    pauseUpload: 'Anhalten',
    resumeUpload: 'Fortsetzen',
    pauseAllUploads: 'Alle anhalten',
    resumeAllUploads: 'Alle fortsetzen',
    pauseLabel: (name) => `Hochladen von ${name} anhalten`,
    resumeLabel: (name) => `Hochladen von ${name} fortsetzen`,
    retryLabel: (name) => `Hochladen von ${name} erneut versuchen`,
    cancelLabel: (name) => `Hochladen von ${name} abbrechen`,
    removeLabel: (name) => `${name} entfernen`,
    fileListLabel: 'Dateien',
    openFile: (name) => `${name} öffnen (in einem neuen Tab)`,
    total: (done, count, percent) => `${done} von ${count} hochgeladen · ${percent}`,
    announceAdded: (count, form) => `${count} ${form === 'one' ? 'Datei' : 'Dateien'} hinzugefügt.`,
    announceDone: (name) => `${name} hochgeladen.`,
    announceFailed: (name, reason) => `${name} wurde nicht hochgeladen: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Alle Uploads abgeschlossen: ${succeeded} hochgeladen.`
        : `Uploads abgeschlossen: ${succeeded} hochgeladen, ${failed} fehlgeschlagen.`,
    interrupted:
      'Unterbrochen. Wählen Sie diese Datei erneut aus, um an derselben Stelle weiterzumachen.',
    formUploading: 'Bitte warten Sie, bis alle Uploads abgeschlossen sind.',
    formRequired: 'Bitte laden Sie mindestens eine Datei hoch.',
    linkLabel: 'Link zu einer Datei',
    linkImport: 'Importieren',
    linkInvalid: 'Geben Sie einen Link ein, der mit https:// oder http:// beginnt.',
    importing: (percent) => `Wird importiert… ${percent}`,
    editorWaiting: 'Bereit zum Bearbeiten oder Hochladen',
    editorEdit: 'Bearbeiten',
    editorEditLabel: (name) => `Bearbeiten: ${name}`,
    editorUpload: 'Hochladen',
    editorUploadLabel: (name) => `${name} unverändert hochladen`,
    editorTitle: (name) => `${name} bearbeiten`,
    editorHelp:
      'Pfeiltasten verschieben den Zuschnitt, Umschalt mit Pfeiltasten ändert seine Größe. Escape bricht ab.',
    editorCropArea: 'Zuschnitt',
    editorAspect: 'Format',
    editorFree: 'Frei',
    editorRotateLeft: 'Nach links drehen',
    editorRotateRight: 'Nach rechts drehen',
    editorFlipX: 'Horizontal spiegeln',
    editorFlipY: 'Vertikal spiegeln',
    editorZoomIn: 'Vergrößern',
    editorZoomOut: 'Verkleinern',
    editorReset: 'Zurücksetzen',
    editorSave: 'Speichern',
    editorAnnounce: (degrees, width, height) =>
      `Um ${degrees} Grad gedreht. Zuschnitt ${width} × ${height} Pixel.`,
    formHeld: 'Bitte bearbeiten Sie die wartenden Bilder oder laden Sie sie hoch.',
    editorUnreadable: (name) =>
      `${name} ließ sich nicht zum Bearbeiten öffnen. Laden Sie es unverändert hoch.`,
  },
  list: {
    listLabel: 'Hochgeladene Dateien',
    loading: 'Dateien werden geladen…',
    empty: 'Noch keine Dateien.',
    emptyHint: 'Hochgeladene Dateien erscheinen hier, die neuesten zuerst.',
    loadMore: 'Mehr laden',
    loadingMore: 'Weitere werden geladen…',
    end: (count, form) =>
      form === 'one' ? 'Das ist die einzige Datei.' : `Das sind alle ${count} Dateien.`,
    retry: 'Erneut versuchen',
    copyLink: 'Link kopieren',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Kopiert',
    copyFailed: 'Kopieren fehlgeschlagen',
    pending: 'Wird hochgeladen…',
    openFile: (name) => `${name} (öffnet in einem neuen Tab)`,
    uploadedAt: (when) => `Hochgeladen ${when}`,
    announceLoaded: (count, form) => `${count} ${form === 'one' ? 'Datei' : 'Dateien'} angezeigt.`,
    announceAdded: (name) => `${name} zur Liste hinzugefügt.`,
    announceCopied: (name) => `Link zu ${name} kopiert.`,
    errorTitle: 'Die Dateien konnten nicht geladen werden.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Diese Seite (${origin}) darf diesen Schlüssel nicht verwenden. Die erlaubten Origins des Schlüssels müssen ${origin} enthalten.`,
    invalid_key: () => 'Der Schlüssel ist unbekannt. Prüfen Sie die Einstellung api-key.',
    missing_auth: () =>
      'Es ist kein Schlüssel gesetzt. Geben Sie einen öffentlichen Schlüssel an (api-key).',
    secret_key: () =>
      'Es wurde ein geheimer Schlüssel angegeben, der nie in einer Webseite stehen darf. Verwenden Sie den öffentlichen Schlüssel (pk_live_…).',
    no_endpoint: () => 'Es ist keine Adresse gesetzt. Geben Sie die API-Adresse an (endpoint).',
    too_large: ({ limit }) => `Diese Datei ist zu groß. Die Grenze liegt bei ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Zu viele Anfragen in kurzer Zeit. Versuchen Sie es in ${seconds} ${form === 'one' ? 'Sekunde' : 'Sekunden'} erneut.`,
    empty_body: () => 'Diese Datei ist leer, es gibt also nichts hochzuladen.',
    network_error: () =>
      'Die Verbindung ist unterbrochen. Prüfen Sie sie und versuchen Sie es erneut; Uploads machen dort weiter, wo sie aufgehört haben.',
    script_missing: () =>
      'Eine Datei, die dieser Uploader braucht, fehlt. Die Seite muss korrigiert werden: Bitte informieren Sie den Betreiber der Website.',
    type_not_allowed: ({ accept }) =>
      `Dieser Dateityp wird hier nicht angenommen. Erlaubt: ${accept}.`,
    too_many_files: ({ max }) => `Sie können höchstens ${max} Dateien hinzufügen.`,
    duplicate_file: () => 'Diese Datei ist bereits in der Liste.',
    upload_expired: () =>
      'Dieser Upload ist abgelaufen, bevor er fertig war. Versuchen Sie es erneut, um ihn neu zu starten.',
    refused: ({ code }) =>
      `Der Dateidienst hat diese Anfrage abgelehnt (${code}). Die Seite muss korrigiert werden: Bitte informieren Sie den Betreiber der Website.`,
    not_found: () =>
      'Unter dieser Adresse wurde nichts gefunden. Prüfen Sie die Einstellung endpoint.',
    internal_error: () =>
      'Beim Dateidienst ist ein Fehler aufgetreten. Versuchen Sie es gleich noch einmal.',
    unavailable: ({ seconds, form }) =>
      `Der Dateidienst ist gerade ausgelastet. Versuchen Sie es in ${seconds} ${form === 'one' ? 'Sekunde' : 'Sekunden'} erneut.`,
    quota_exceeded: () =>
      'Für diese Datei ist kein Platz: Der Speicher der Website ist voll oder hat zu viele unfertige Uploads. Versuchen Sie es später erneut oder informieren Sie den Betreiber der Website.',
    damaged: () =>
      'Ein Teil der Datei kam beschädigt oder unvollständig an. Versuchen Sie es erneut; hat sich die Datei inzwischen geändert, wählen Sie sie neu aus.',
    link_expired: () =>
      'Der Link dieses Uploads ist nicht mehr gültig. Versuchen Sie es erneut, um einen neuen zu erhalten.',
    upload_conflict: () =>
      'Dieser Upload wurde bereits abgeschlossen, vielleicht in einem anderen Tab. Wählen Sie die Datei erneut aus, um sie neu hochzuladen.',
    insufficient_storage: () =>
      'Der Dateidienst hat gerade keinen Platz für Dateien und hat nichts gespeichert. Versuchen Sie es später erneut.',
    token_expired: () =>
      'Ihre Berechtigung zum Hochladen ist abgelaufen. Laden Sie die Seite neu oder melden Sie sich erneut an und versuchen Sie es dann noch einmal.',
    token_provider_failed: () =>
      'Diese Seite konnte keine Berechtigung zum Hochladen erhalten. Versuchen Sie es erneut oder laden Sie die Seite neu; klappt es weiterhin nicht, informieren Sie den Betreiber der Website.',
    token_exhausted: () =>
      'Sie haben die Grenze an Dateien oder Datenmenge erreicht, die Sie hier hochladen dürfen. Diese Datei wurde daher nicht gesendet.',
    upload_token_required: () =>
      'Diese Website nimmt Uploads nur von Personen an, denen sie es erlaubt hat, und diese Seite hat diese Erlaubnis nicht erhalten. Melden Sie sich an oder informieren Sie den Betreiber der Website.',
    infected: () =>
      'Eine Virenprüfung hat in dieser Datei Schadsoftware gefunden. Die Datei wurde abgelehnt, nichts wurde gespeichert.',
    metadata_unreadable: () =>
      'Der Standort dieses Fotos ließ sich nicht sicher entfernen, deshalb wurde nichts gespeichert. Speichern Sie eine Kopie ohne Standort und versuchen Sie es erneut.',
    unscannable: () =>
      'Die Virenprüfung konnte diese Datei nicht vollständig prüfen (etwa ein Archiv, das entpackt zu groß wird). Die Datei wurde abgelehnt, nichts wurde gespeichert.',
    import_refused_target: () =>
      'Dieser Link zeigt auf eine Adresse, von der der Dateidienst nicht laden darf. Verwenden Sie einen öffentlichen Link.',
    import_http_error: () =>
      'Die Website hinter dem Link hat die Datei nicht geliefert. Prüfen Sie den Link und versuchen Sie es erneut.',
    import_timeout: () =>
      'Die Website hinter dem Link hat zu lange gebraucht. Versuchen Sie es später erneut.',
    import_failed: () =>
      'Die Datei konnte nicht über den Link geladen werden. Versuchen Sie es später erneut.',
    import_too_large: ({ limit }) =>
      `Die Datei hinter dem Link ist für diese Website zu groß.${limit ? ` Die Grenze liegt bei ${limit}.` : ''}`,
    import_unsupported_type: () => 'Dieser Dateityp wird hier nicht angenommen.',
    unexpected: ({ code, message }) =>
      `Etwas ist schiefgelaufen (${code}).${message ? ` ${message}` : ''} Versuchen Sie es erneut oder später noch einmal.`,
  },
};

export default de;
