import type { PluralForm, Translation } from '../elements/shared/translation.js';

const files = (form: PluralForm) => (form === 'one' ? 'arquivo' : 'arquivos');

/** Portuguese as written in Brazil (português do Brasil); other Portuguese falls back to it. */
const ptBR: Translation = {
  $code: 'pt-BR',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Arraste arquivos para cá ou',
    dropzoneFolders: 'Arraste arquivos ou pastas para cá ou',
    browse: 'escolha arquivos',
    or: 'ou',
    browseFolder: 'escolha uma pasta',
    takePhoto: 'Tirar uma foto',
    dropHere: 'Solte os arquivos para enviá-los',
    hintTypes: (types) => `Aceitos: ${types}.`,
    hintMaxSize: (size) => `Até ${size} cada.`,
    hintMaxFiles: (count, form) => `No máximo ${count} ${files(form)}.`,
    hintFilesLeft: (count, form) => `Você ainda pode enviar ${count} ${files(form)}.`,
    hintBytesLeft: (size) => `Restam ${size} no total.`,
    hintPaste: 'Você também pode colar arquivos.',
    queued: 'Aguardando envio',
    preparing: 'Preparando…',
    uploading: (percent) => `Enviando… ${percent}`,
    timeLeft: (duration, form) => `${form === 'one' ? 'falta' : 'faltam'} ${duration}`,
    finishing: 'Finalizando…',
    done: 'Enviado',
    retrying: (seconds) => `Nova tentativa em ${seconds} s…`,
    paused: 'Pausado',
    upload: 'Enviar',
    retry: 'Tentar de novo',
    cancel: 'Cancelar',
    remove: 'Remover',
    cancelAll: 'Cancelar tudo',
    pauseUpload: 'Pausar',
    resumeUpload: 'Retomar',
    pauseAllUploads: 'Pausar tudo',
    resumeAllUploads: 'Retomar tudo',
    pauseLabel: (name) => `Pausar o envio de ${name}`,
    resumeLabel: (name) => `Retomar o envio de ${name}`,
    retryLabel: (name) => `Tentar enviar ${name} de novo`,
    cancelLabel: (name) => `Cancelar o envio de ${name}`,
    removeLabel: (name) => `Remover ${name}`,
    fileListLabel: 'Arquivos',
    openFile: (name) => `Abrir ${name} (em uma nova aba)`,
    total: (done, count, percent) => `${done} de ${count} enviados · ${percent}`,
    announceAdded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'adicionado' : 'adicionados'}.`,
    announceDone: (name) => `${name} enviado.`,
    announceFailed: (name, reason) => `${name} não foi enviado: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Todos os envios terminaram: ${succeeded} enviados.`
        : `Envios terminados: ${succeeded} enviados, ${failed} com falha.`,
    interrupted: 'Interrompido. Escolha este arquivo de novo para continuar de onde parou.',
    formUploading: 'Aguarde até que os envios terminem.',
    formRequired: 'Envie pelo menos um arquivo.',
    linkLabel: 'Link para um arquivo',
    linkImport: 'Importar',
    linkInvalid: 'Digite um link que comece com https:// ou http://.',
    importing: (percent) => `Importando… ${percent}`,
    editorWaiting: 'Pronta para editar ou enviar',
    editorEdit: 'Editar',
    editorEditLabel: (name) => `Editar ${name}`,
    editorUpload: 'Enviar',
    editorUploadLabel: (name) => `Enviar ${name} como está`,
    editorTitle: (name) => `Editar ${name}`,
    editorHelp:
      'As setas movem a área de corte; Shift com as setas muda o tamanho dela. Esc cancela.',
    editorCropArea: 'Área de corte',
    editorAspect: 'Proporção',
    editorFree: 'Livre',
    editorRotateLeft: 'Girar para a esquerda',
    editorRotateRight: 'Girar para a direita',
    editorFlipX: 'Espelhar na horizontal',
    editorFlipY: 'Espelhar na vertical',
    editorZoomIn: 'Aproximar',
    editorZoomOut: 'Afastar',
    editorReset: 'Redefinir',
    editorSave: 'Salvar',
    editorAnnounce: (degrees, width, height) =>
      `Girada ${degrees} graus. Área de corte de ${width} × ${height} pixels.`,
    formHeld: 'Edite ou envie primeiro as imagens que estão esperando.',
    editorUnreadable: (name) => `Não foi possível abrir ${name} para edição. Envie como está.`,
  },
  list: {
    listLabel: 'Arquivos enviados',
    loading: 'Carregando arquivos…',
    empty: 'Nenhum arquivo ainda.',
    emptyHint: 'Os arquivos enviados aparecem aqui, os mais recentes primeiro.',
    loadMore: 'Carregar mais',
    loadingMore: 'Carregando mais…',
    end: (count, form) =>
      form === 'one' ? 'Este é o único arquivo.' : `Estes são todos os ${count} arquivos.`,
    retry: 'Tentar de novo',
    copyLink: 'Copiar link',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Copiado',
    copyFailed: 'Falha ao copiar',
    pending: 'Enviando…',
    openFile: (name) => `${name} (abre em uma nova aba)`,
    uploadedAt: (when) => `Enviado ${when}`,
    announceLoaded: (count, form) =>
      `${count} ${files(form)} ${form === 'one' ? 'exibido' : 'exibidos'}.`,
    announceAdded: (name) => `${name} adicionado à lista.`,
    announceCopied: (name) => `Link de ${name} copiado.`,
    errorTitle: 'Não foi possível carregar os arquivos.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Esta página (${origin}) não pode usar esta chave. A lista de origens permitidas da chave precisa incluir ${origin}.`,
    invalid_key: () => 'A chave não foi reconhecida. Verifique a configuração api-key.',
    missing_auth: () => 'Nenhuma chave definida. Informe uma chave pública (api-key).',
    secret_key: () =>
      'Foi informada uma chave secreta, que nunca deve estar em uma página web. Use a chave pública (pk_live_…).',
    no_endpoint: () => 'Nenhum endereço definido. Informe o endereço da API (endpoint).',
    too_large: ({ limit }) => `Este arquivo é grande demais. O limite é ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Solicitações demais em pouco tempo. Tente de novo em ${seconds} ${form === 'one' ? 'segundo' : 'segundos'}.`,
    empty_body: () => 'Este arquivo está vazio, então não há nada para enviar.',
    network_error: () =>
      'A conexão caiu. Verifique-a e tente de novo; os envios continuam de onde pararam.',
    script_missing: () =>
      'Falta um arquivo de que este envio precisa. A página precisa ser corrigida: avise o responsável pelo site.',
    type_not_allowed: ({ accept }) => `Este tipo de arquivo não é aceito aqui. Aceitos: ${accept}.`,
    too_many_files: ({ max, form }) => `Você pode adicionar no máximo ${max} ${files(form)}.`,
    duplicate_file: () => 'Este arquivo já está na lista.',
    upload_expired: () => 'Este envio expirou antes de terminar. Tente de novo para recomeçá-lo.',
    refused: ({ code }) =>
      `O serviço de arquivos recusou esta solicitação (${code}). A página precisa ser corrigida: avise o responsável pelo site.`,
    not_found: () => 'Nada foi encontrado neste endereço. Verifique a configuração endpoint.',
    internal_error: () => 'O serviço de arquivos teve um problema. Tente de novo em instantes.',
    unavailable: ({ seconds, form }) =>
      `O serviço de arquivos está ocupado agora. Tente de novo em ${seconds} ${form === 'one' ? 'segundo' : 'segundos'}.`,
    quota_exceeded: () =>
      'Não há espaço para este arquivo: o armazenamento do site está cheio ou tem envios inacabados demais. Tente mais tarde ou avise o responsável pelo site.',
    damaged: () =>
      'Parte do arquivo chegou danificada ou incompleta. Tente de novo; se o arquivo mudou nesse meio-tempo, escolha-o outra vez.',
    link_expired: () => 'O link deste envio não é mais válido. Tente de novo para obter um novo.',
    upload_conflict: () =>
      'Este envio já foi concluído, talvez em outra aba. Escolha o arquivo outra vez para enviá-lo de novo.',
    insufficient_storage: () =>
      'O serviço de arquivos está sem espaço agora e não guardou nada. Tente mais tarde.',
    token_expired: () =>
      'Sua permissão para enviar arquivos expirou. Recarregue a página ou entre novamente e depois tente de novo.',
    token_provider_failed: () =>
      'Esta página não conseguiu obter permissão para enviar arquivos. Tente de novo ou recarregue a página; se continuar falhando, avise o responsável pelo site.',
    token_exhausted: () =>
      'Você atingiu o limite de arquivos ou de dados que pode enviar aqui, então este arquivo não foi enviado.',
    upload_token_required: () =>
      'Este site só aceita envios de pessoas que ele autorizou, e esta página não recebeu essa autorização. Entre na sua conta ou avise o responsável pelo site.',
    infected: () =>
      'Uma verificação de vírus encontrou malware neste arquivo: ele foi recusado e nada foi guardado.',
    metadata_unreadable: () =>
      'Não foi possível remover com segurança a localização desta foto, então nada foi guardado. Salve uma cópia sem localização e tente de novo.',
    unscannable: () =>
      'A verificação de vírus não conseguiu examinar este arquivo por completo (talvez um arquivo compactado que se expande demais): ele foi recusado e nada foi guardado.',
    import_refused_target: () =>
      'Este link aponta para um endereço do qual o serviço de arquivos não pode baixar. Use um link público.',
    import_http_error: () =>
      'O site do link não entregou o arquivo. Confira o link e tente de novo.',
    import_timeout: () =>
      'O site do link demorou demais para enviar o arquivo. Tente de novo mais tarde.',
    import_failed: () => 'Não foi possível buscar o arquivo pelo link. Tente de novo mais tarde.',
    import_too_large: ({ limit }) =>
      `O arquivo do link é grande demais para este site.${limit ? ` O limite é ${limit}.` : ''}`,
    import_unsupported_type: () => 'Este tipo de arquivo não é aceito aqui.',
    unexpected: ({ code, message }) =>
      `Algo deu errado (${code}).${message ? ` ${message}` : ''} Tente de novo agora ou mais tarde.`,
  },
};

export default ptBR;
