import type { PluralForm, Translation } from '../elements/shared/translation.js';

const files = (form: PluralForm) => (form === 'one' ? 'archivo' : 'archivos');

/** Spanish (español). */
const es: Translation = {
  $code: 'es',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Arrastra archivos aquí o',
    dropzoneFolders: 'Arrastra archivos o carpetas aquí o',
    browse: 'elige archivos',
    or: 'o',
    browseFolder: 'elige una carpeta',
    takePhoto: 'Hacer una foto',
    dropHere: 'Suelta los archivos para subirlos',
    hintTypes: (types) => `Se aceptan: ${types}.`,
    hintMaxSize: (size) => `Hasta ${size} por archivo.`,
    hintMaxFiles: (count, form) => `Como máximo ${count} ${files(form)}.`,
    hintFilesLeft: (count, form) => `Puede subir ${count} ${files(form)} más.`,
    hintBytesLeft: (size) => `Quedan ${size} en total.`,
    hintPaste: 'También puedes pegar archivos.',
    queued: 'En espera',
    preparing: 'Preparando…',
    uploading: (percent) => `Subiendo… ${percent}`,
    timeLeft: (duration, form) => `${form === 'one' ? 'queda' : 'quedan'} ${duration}`,
    finishing: 'Finalizando…',
    done: 'Subido',
    retrying: (seconds) => `Nuevo intento en ${seconds} s…`,
    paused: 'En pausa',
    upload: 'Subir',
    retry: 'Reintentar',
    cancel: 'Cancelar',
    remove: 'Quitar',
    cancelAll: 'Cancelar todo',
    pauseUpload: 'Pausar',
    resumeUpload: 'Reanudar',
    pauseAllUploads: 'Pausar todo',
    resumeAllUploads: 'Reanudar todo',
    pauseLabel: (name) => `Pausar la subida de ${name}`,
    resumeLabel: (name) => `Reanudar la subida de ${name}`,
    retryLabel: (name) => `Reintentar la subida de ${name}`,
    cancelLabel: (name) => `Cancelar la subida de ${name}`,
    removeLabel: (name) => `Quitar ${name}`,
    fileListLabel: 'Archivos',
    openFile: (name) => `Abrir ${name} (en una pestaña nueva)`,
    total: (done, count, percent) => `${done} de ${count} subidos · ${percent}`,
    announceAdded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'añadido' : 'añadidos'}.`,
    announceDone: (name) => `${name} subido.`,
    announceFailed: (name, reason) => `${name} no se ha subido: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Han terminado todas las subidas: ${succeeded} correctas.`
        : `Han terminado las subidas: ${succeeded} correctas, ${failed} con error.`,
    interrupted: 'Interrumpido. Vuelve a elegir este archivo para continuar donde se quedó.',
    formUploading: 'Espera a que terminen las subidas.',
    formRequired: 'Sube al menos un archivo.',
    linkLabel: 'Enlace a un archivo',
    linkImport: 'Importar',
    linkInvalid: 'Escribe un enlace que empiece por https:// o http://.',
    importing: (percent) => `Importando… ${percent}`,
    editorWaiting: 'Lista para editar o subir',
    editorEdit: 'Editar',
    editorEditLabel: (name) => `Editar ${name}`,
    editorUpload: 'Subir',
    editorUploadLabel: (name) => `Subir ${name} tal como está`,
    editorTitle: (name) => `Editar ${name}`,
    editorHelp:
      'Las flechas mueven el área de recorte; Mayús con las flechas cambia su tamaño. Escape cancela.',
    editorCropArea: 'Área de recorte',
    editorAspect: 'Proporción',
    editorFree: 'Libre',
    editorRotateLeft: 'Girar a la izquierda',
    editorRotateRight: 'Girar a la derecha',
    editorFlipX: 'Voltear horizontalmente',
    editorFlipY: 'Voltear verticalmente',
    editorZoomIn: 'Acercar',
    editorZoomOut: 'Alejar',
    editorReset: 'Restablecer',
    editorSave: 'Guardar',
    editorAnnounce: (degrees, width, height) =>
      `Girada ${degrees} grados. Área de recorte de ${width} × ${height} píxeles.`,
    formHeld: 'Edita o sube primero las imágenes que esperan.',
    editorUnreadable: (name) => `No se pudo abrir ${name} para editarla. Súbela tal como está.`,
  },
  list: {
    listLabel: 'Archivos subidos',
    loading: 'Cargando archivos…',
    empty: 'Todavía no hay archivos.',
    emptyHint: 'Los archivos que subas aparecen aquí, los más recientes primero.',
    loadMore: 'Cargar más',
    loadingMore: 'Cargando más…',
    end: (count, form) =>
      form === 'one' ? 'Es el único archivo.' : `Son todos: ${count} archivos.`,
    retry: 'Volver a intentar',
    copyLink: 'Copiar enlace',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Copiado',
    copyFailed: 'No se pudo copiar',
    pending: 'Subiendo…',
    openFile: (name) => `${name} (se abre en una pestaña nueva)`,
    uploadedAt: (when) => `Subido ${when}`,
    announceLoaded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'mostrado' : 'mostrados'}.`,
    announceAdded: (name) => `${name} añadido a la lista.`,
    announceCopied: (name) => `Enlace a ${name} copiado.`,
    errorTitle: 'No se pudieron cargar los archivos.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Esta página (${origin}) no puede usar esta clave. La lista de orígenes permitidos de la clave debe incluir ${origin}.`,
    invalid_key: () => 'No se reconoce la clave. Revisa el ajuste api-key.',
    missing_auth: () => 'No hay ninguna clave. Indica una clave pública (api-key).',
    secret_key: () =>
      'Se ha dado una clave secreta, que nunca debe estar en una página web. Usa la clave pública (pk_live_…).',
    no_endpoint: () => 'No hay ninguna dirección. Indica la dirección de la API (endpoint).',
    too_large: ({ limit }) => `Este archivo es demasiado grande. El límite es ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Demasiadas solicitudes en poco tiempo. Vuelve a intentarlo en ${seconds} ${form === 'one' ? 'segundo' : 'segundos'}.`,
    empty_body: () => 'Este archivo está vacío: no hay nada que subir.',
    network_error: () =>
      'Se ha perdido la conexión. Compruébala y vuelve a intentarlo; las subidas siguen donde se quedaron.',
    script_missing: () =>
      'Falta un archivo que este cargador necesita. Hay que corregir la página: avisa al responsable del sitio.',
    type_not_allowed: ({ accept }) =>
      `Aquí no se acepta este tipo de archivo. Se aceptan: ${accept}.`,
    too_many_files: ({ max, form }) => `Puedes añadir como máximo ${max} ${files(form)}.`,
    duplicate_file: () => 'Este archivo ya está en la lista.',
    upload_expired: () =>
      'Esta subida caducó antes de terminar. Reinténtala para empezar de nuevo.',
    refused: ({ code }) =>
      `El servicio de archivos rechazó esta solicitud (${code}). Hay que corregir la página: avisa al responsable del sitio.`,
    not_found: () => 'No se encontró nada en esta dirección. Revisa el ajuste endpoint.',
    internal_error: () =>
      'El servicio de archivos tuvo un problema. Vuelve a intentarlo en un momento.',
    unavailable: ({ seconds, form }) =>
      `El servicio de archivos está ocupado ahora mismo. Vuelve a intentarlo en ${seconds} ${form === 'one' ? 'segundo' : 'segundos'}.`,
    quota_exceeded: () =>
      'No hay espacio para este archivo: el almacenamiento del sitio está lleno o tiene demasiadas subidas sin terminar. Inténtalo más tarde o avisa al responsable del sitio.',
    damaged: () =>
      'Una parte del archivo llegó dañada o incompleta. Reinténtalo; si el archivo cambió mientras tanto, vuelve a elegirlo.',
    link_expired: () =>
      'El enlace de esta subida ya no es válido. Reinténtalo para obtener uno nuevo.',
    upload_conflict: () =>
      'Esta subida ya se terminó, quizá en otra pestaña. Vuelve a elegir el archivo para subirlo de nuevo.',
    insufficient_storage: () =>
      'El servicio de archivos no tiene espacio ahora mismo y no guardó nada. Inténtalo más tarde.',
    token_expired: () =>
      'Su permiso para subir archivos ha caducado. Recargue la página o vuelva a iniciar sesión, y luego reintente.',
    token_provider_failed: () =>
      'Esta página no pudo obtener permiso para subir archivos. Reintente o recargue la página; si sigue fallando, avise al responsable del sitio.',
    token_exhausted: () =>
      'Ha alcanzado el límite de archivos o de datos que puede subir aquí, así que este archivo no se envió.',
    upload_token_required: () =>
      'Este sitio solo acepta archivos de personas a las que ha dado permiso, y esta página no recibió ese permiso. Inicie sesión o avise al responsable del sitio.',
    infected: () =>
      'Un análisis antivirus encontró software malicioso en este archivo: se rechazó y no se guardó nada.',
    metadata_unreadable: () =>
      'No se pudo quitar con seguridad la ubicación de esta foto, así que no se guardó nada. Guarde una copia sin ubicación y vuelva a intentarlo.',
    unscannable: () =>
      'El análisis antivirus no pudo terminar de revisar este archivo (quizá un archivo comprimido que se descomprime en demasiados datos): se rechazó y no se guardó nada.',
    import_refused_target: () =>
      'Este enlace apunta a una dirección de la que el servicio de archivos no puede descargar. Usa un enlace público.',
    import_http_error: () =>
      'El sitio del enlace no entregó el archivo. Revisa el enlace y vuelve a intentarlo.',
    import_timeout: () =>
      'El sitio del enlace tardó demasiado en enviar el archivo. Vuelve a intentarlo más tarde.',
    import_failed: () => 'No se pudo obtener el archivo del enlace. Vuelve a intentarlo más tarde.',
    import_too_large: ({ limit }) =>
      `El archivo del enlace es demasiado grande para este sitio.${limit ? ` El límite es ${limit}.` : ''}`,
    import_unsupported_type: () => 'Aquí no se acepta este tipo de archivo.',
    unexpected: ({ code, message }) =>
      `Algo ha fallado (${code}).${message ? ` ${message}` : ''} Reinténtalo ahora o más tarde.`,
  },
};

export default es;
