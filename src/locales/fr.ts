import type { PluralForm, Translation } from '../elements/shared/translation.js';

const files = (form: PluralForm) => (form === 'one' ? 'fichier' : 'fichiers');

/** French (français). */
const fr: Translation = {
  $code: 'fr',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Glissez des fichiers ici, ou',
    dropzoneFolders: 'Glissez des fichiers ou des dossiers ici, ou',
    browse: 'choisissez des fichiers',
    or: 'ou',
    browseFolder: 'choisissez un dossier',
    takePhoto: 'Prendre une photo',
    dropHere: 'Déposez les fichiers pour les envoyer',
    hintTypes: (types) => `Acceptés : ${types}.`,
    hintMaxSize: (size) => `Jusqu’à ${size} par fichier.`,
    hintMaxFiles: (count, form) => `${count} ${files(form)} au maximum.`,
    hintFilesLeft: (count, form) => `Vous pouvez encore envoyer ${count} ${files(form)}.`,
    hintBytesLeft: (size) => `Il reste ${size} au total.`,
    hintPaste: 'Vous pouvez aussi coller des fichiers.',
    queued: 'En attente d’envoi',
    preparing: 'Préparation…',
    uploading: (percent) => `Envoi… ${percent}`,
    timeLeft: (duration) => `il reste ${duration}`,
    finishing: 'Finalisation…',
    done: 'Envoyé',
    retrying: (seconds) => `Nouvel essai dans ${seconds} s…`,
    paused: 'En pause',
    upload: 'Envoyer',
    retry: 'Réessayer',
    cancel: 'Annuler',
    remove: 'Retirer',
    cancelAll: 'Tout annuler',
    pauseUpload: 'Pause',
    resumeUpload: 'Reprendre',
    pauseAllUploads: 'Tout mettre en pause',
    resumeAllUploads: 'Tout reprendre',
    pauseLabel: (name) => `Mettre en pause l’envoi de ${name}`,
    resumeLabel: (name) => `Reprendre l’envoi de ${name}`,
    retryLabel: (name) => `Réessayer l’envoi de ${name}`,
    cancelLabel: (name) => `Annuler l’envoi de ${name}`,
    removeLabel: (name) => `Retirer ${name}`,
    fileListLabel: 'Fichiers',
    openFile: (name) => `Ouvrir ${name} (dans un nouvel onglet)`,
    total: (done, count, percent) => `${done} sur ${count} envoyés · ${percent}`,
    announceAdded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'ajouté' : 'ajoutés'}.`,
    announceDone: (name) => `${name} envoyé.`,
    announceFailed: (name, reason) => `${name} n’a pas été envoyé : ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Tous les envois sont terminés : ${succeeded} envoyé(s).`
        : `Envois terminés : ${succeeded} envoyé(s), ${failed} en échec.`,
    interrupted:
      'Interrompu. Choisissez à nouveau ce fichier pour reprendre là où il s’est arrêté.',
    formUploading: 'Veuillez attendre la fin des envois.',
    formRequired: 'Veuillez envoyer au moins un fichier.',
    linkLabel: 'Lien vers un fichier',
    linkImport: 'Importer',
    linkInvalid: 'Saisissez un lien qui commence par https:// ou http://.',
    importing: (percent) => `Importation… ${percent}`,
    editorWaiting: 'Prête à modifier ou à envoyer',
    editorEdit: 'Modifier',
    editorEditLabel: (name) => `Modifier ${name}`,
    editorUpload: 'Envoyer',
    editorUploadLabel: (name) => `Envoyer ${name} tel quel`,
    editorTitle: (name) => `Modifier ${name}`,
    editorHelp:
      'Les flèches déplacent la zone de recadrage ; Maj avec les flèches la redimensionne. Échap annule.',
    editorCropArea: 'Zone de recadrage',
    editorAspect: 'Format',
    editorFree: 'Libre',
    editorRotateLeft: 'Pivoter à gauche',
    editorRotateRight: 'Pivoter à droite',
    editorFlipX: 'Retourner horizontalement',
    editorFlipY: 'Retourner verticalement',
    editorZoomIn: 'Zoom avant',
    editorZoomOut: 'Zoom arrière',
    editorReset: 'Réinitialiser',
    editorSave: 'Enregistrer',
    editorAnnounce: (degrees, width, height) =>
      `Pivotée de ${degrees} degrés. Zone de recadrage de ${width} × ${height} pixels.`,
    formHeld: 'Modifiez ou envoyez d’abord les images en attente.',
    editorUnreadable: (name) =>
      `${name} n’a pas pu être ouverte pour la modifier. Envoyez-la telle quelle.`,
  },
  list: {
    listLabel: 'Fichiers envoyés',
    loading: 'Chargement des fichiers…',
    empty: 'Aucun fichier pour l’instant.',
    emptyHint: 'Les fichiers envoyés apparaissent ici, les plus récents en premier.',
    loadMore: 'Afficher plus',
    loadingMore: 'Chargement…',
    end: (count, form) =>
      form === 'one' ? 'C’est le seul fichier.' : `Ce sont les ${count} fichiers.`,
    retry: 'Réessayer',
    copyLink: 'Copier le lien',
    copyLinkTarget: (name) => ` : ${name}`,
    copied: 'Copié',
    copyFailed: 'Échec de la copie',
    pending: 'Envoi…',
    openFile: (name) => `${name} (s’ouvre dans un nouvel onglet)`,
    uploadedAt: (when) => `Envoyé ${when}`,
    announceLoaded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'affiché' : 'affichés'}.`,
    announceAdded: (name) => `${name} ajouté à la liste.`,
    announceCopied: (name) => `Lien vers ${name} copié.`,
    errorTitle: 'Impossible de charger les fichiers.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Cette page (${origin}) ne peut pas utiliser cette clé. La liste des origines autorisées de la clé doit contenir ${origin}.`,
    invalid_key: () => 'La clé n’est pas reconnue. Vérifiez le réglage api-key.',
    missing_auth: () => 'Aucune clé n’est définie. Indiquez une clé publique (api-key).',
    secret_key: () =>
      'Une clé secrète a été donnée ; elle ne doit jamais figurer dans une page web. Utilisez la clé publique (pk_live_…).',
    no_endpoint: () => 'Aucune adresse n’est définie. Indiquez l’adresse de l’API (endpoint).',
    too_large: ({ limit }) => `Ce fichier est trop volumineux. La limite est de ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Trop de requêtes en peu de temps. Réessayez dans ${seconds} ${form === 'one' ? 'seconde' : 'secondes'}.`,
    empty_body: () => 'Ce fichier est vide : il n’y a rien à envoyer.',
    network_error: () =>
      'La connexion a été perdue. Vérifiez-la et réessayez ; les envois reprennent là où ils se sont arrêtés.',
    script_missing: () =>
      'Un fichier nécessaire à cet outil d’envoi est introuvable. La page doit être corrigée : prévenez le responsable du site.',
    type_not_allowed: ({ accept }) =>
      `Ce type de fichier n’est pas accepté ici. Acceptés : ${accept}.`,
    too_many_files: ({ max, form }) => `Vous pouvez ajouter ${max} ${files(form)} au maximum.`,
    duplicate_file: () => 'Ce fichier est déjà dans la liste.',
    upload_expired: () => 'Cet envoi a expiré avant d’être terminé. Réessayez pour le recommencer.',
    refused: ({ code }) =>
      `Le service de fichiers a refusé cette requête (${code}). La page doit être corrigée : prévenez le responsable du site.`,
    not_found: () => 'Rien n’a été trouvé à cette adresse. Vérifiez le réglage endpoint.',
    internal_error: () =>
      'Le service de fichiers a rencontré un problème. Réessayez dans un instant.',
    unavailable: ({ seconds, form }) =>
      `Le service de fichiers est surchargé pour le moment. Réessayez dans ${seconds} ${form === 'one' ? 'seconde' : 'secondes'}.`,
    quota_exceeded: () =>
      'Il n’y a pas de place pour ce fichier : le stockage du site est plein ou contient trop d’envois inachevés. Réessayez plus tard ou prévenez le responsable du site.',
    damaged: () =>
      'Une partie du fichier est arrivée abîmée ou incomplète. Réessayez ; si le fichier a changé entre-temps, choisissez-le à nouveau.',
    link_expired: () =>
      'Le lien de cet envoi n’est plus valide. Réessayez pour en obtenir un nouveau.',
    upload_conflict: () =>
      'Cet envoi a déjà été terminé, peut-être dans un autre onglet. Choisissez à nouveau le fichier pour l’envoyer.',
    insufficient_storage: () =>
      'Le service de fichiers n’a plus de place pour le moment et n’a rien conservé. Réessayez plus tard.',
    token_expired: () =>
      'Votre autorisation d’envoyer des fichiers a expiré. Rechargez la page ou reconnectez-vous, puis réessayez.',
    token_provider_failed: () =>
      'Cette page n’a pas pu obtenir l’autorisation d’envoyer des fichiers. Réessayez ou rechargez la page ; si cela continue, prévenez le responsable du site.',
    token_exhausted: () =>
      'Vous avez atteint la limite de fichiers ou de données que vous pouvez envoyer ici : ce fichier n’a donc pas été envoyé.',
    upload_token_required: () =>
      'Ce site n’accepte que les envois des personnes qu’il a autorisées, et cette page n’a pas reçu cette autorisation. Connectez-vous, ou prévenez le responsable du site.',
    infected: () =>
      'Une analyse antivirus a trouvé un logiciel malveillant dans ce fichier : il a été refusé et rien n’a été conservé.',
    metadata_unreadable: () =>
      'La position de cette photo n’a pas pu être retirée avec certitude : rien n’a été conservé. Enregistrez une copie sans position et réessayez.',
    unscannable: () =>
      'L’analyse antivirus n’a pas pu vérifier ce fichier jusqu’au bout (peut-être une archive qui se décompresse en trop de données) : il a été refusé et rien n’a été conservé.',
    import_refused_target: () =>
      'Ce lien mène à une adresse que le service de fichiers n’a pas le droit de consulter. Utilisez un lien public.',
    import_http_error: () =>
      'Le site derrière le lien n’a pas fourni le fichier. Vérifiez le lien et réessayez.',
    import_timeout: () =>
      'Le site derrière le lien a mis trop de temps à envoyer le fichier. Réessayez plus tard.',
    import_failed: () => 'Le fichier n’a pas pu être récupéré depuis le lien. Réessayez plus tard.',
    import_too_large: ({ limit }) =>
      `Le fichier derrière le lien est trop volumineux pour ce site.${limit ? ` La limite est de ${limit}.` : ''}`,
    import_unsupported_type: () => 'Ce type de fichier n’est pas accepté ici.',
    unexpected: ({ code, message }) =>
      `Une erreur s’est produite (${code}).${message ? ` ${message}` : ''} Réessayez maintenant ou plus tard.`,
  },
};

export default fr;
