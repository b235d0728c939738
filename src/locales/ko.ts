import type { Translation } from '../elements/shared/translation.js';

/** Korean (한국어): no plural forms; counts take the counter 개. */
const ko: Translation = {
  $code: 'ko',
  $dir: 'ltr',
  uploader: {
    dropzone: '파일을 여기로 끌어 오거나',
    dropzoneFolders: '파일이나 폴더를 여기로 끌어 오거나',
    browse: '파일 선택',
    or: '또는',
    browseFolder: '폴더 선택',
    takePhoto: '사진 찍기',
    dropHere: '놓으면 업로드됩니다',
    hintTypes: (types) => `허용 형식: ${types}.`,
    hintMaxSize: (size) => `파일당 최대 ${size}.`,
    hintMaxFiles: (count) => `최대 ${count}개.`,
    hintFilesLeft: (count) => `${count}개 더 올릴 수 있습니다.`,
    hintBytesLeft: (size) => `총 ${size} 남았습니다.`,
    hintPaste: '파일을 붙여 넣을 수도 있습니다.',
    queued: '업로드 대기 중',
    preparing: '준비 중…',
    uploading: (percent) => `업로드 중… ${percent}`,
    timeLeft: (duration) => `${duration} 남음`,
    finishing: '마무리 중…',
    done: '업로드됨',
    retrying: (seconds) => `${seconds}초 후 다시 시도…`,
    paused: '일시 중지됨',
    upload: '업로드',
    retry: '다시 시도',
    cancel: '취소',
    remove: '삭제',
    cancelAll: '모두 취소',
    pauseUpload: '일시 중지',
    resumeUpload: '계속',
    pauseAllUploads: '모두 일시 중지',
    resumeAllUploads: '모두 계속',
    pauseLabel: (name) => `${name} 업로드 일시 중지`,
    resumeLabel: (name) => `${name} 업로드 계속`,
    retryLabel: (name) => `${name} 업로드 다시 시도`,
    cancelLabel: (name) => `${name} 업로드 취소`,
    removeLabel: (name) => `${name} 삭제`,
    fileListLabel: '파일',
    openFile: (name) => `${name} 열기(새 탭)`,
    total: (done, count, percent) => `${count}개 중 ${done}개 업로드됨 · ${percent}`,
    announceAdded: (count) => `파일 ${count}개를 추가했습니다.`,
    announceDone: (name) => `${name} 업로드를 마쳤습니다.`,
    announceFailed: (name, reason) => `${name}을(를) 업로드하지 못했습니다: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `모든 업로드가 끝났습니다. 성공 ${succeeded}개.`
        : `업로드가 끝났습니다. 성공 ${succeeded}개, 실패 ${failed}개.`,
    interrupted: '중단되었습니다. 이 파일을 다시 선택하면 멈춘 곳부터 이어서 올립니다.',
    formUploading: '업로드가 끝날 때까지 기다려 주세요.',
    formRequired: '파일을 하나 이상 업로드해 주세요.',
    linkLabel: '파일 링크',
    linkImport: '가져오기',
    linkInvalid: 'https:// 또는 http://로 시작하는 링크를 입력하세요.',
    importing: (percent) => `가져오는 중… ${percent}`,
    editorWaiting: '편집하거나 업로드할 수 있음',
    editorEdit: '편집',
    editorEditLabel: (name) => `${name} 편집`,
    editorUpload: '업로드',
    editorUploadLabel: (name) => `${name} 그대로 업로드`,
    editorTitle: (name) => `${name} 편집`,
    editorHelp:
      '화살표 키로 자르기 영역을 옮기고, Shift와 화살표 키로 크기를 바꿉니다. Esc를 누르면 취소됩니다.',
    editorCropArea: '자르기 영역',
    editorAspect: '비율',
    editorFree: '자유',
    editorRotateLeft: '왼쪽으로 회전',
    editorRotateRight: '오른쪽으로 회전',
    editorFlipX: '좌우 반전',
    editorFlipY: '상하 반전',
    editorZoomIn: '확대',
    editorZoomOut: '축소',
    editorReset: '초기화',
    editorSave: '저장',
    editorAnnounce: (degrees, width, height) =>
      `${degrees}도 회전됨. 자르기 영역 ${width} × ${height} 픽셀.`,
    formHeld: '대기 중인 이미지를 먼저 편집하거나 업로드하세요.',
    editorUnreadable: (name) => `${name}을(를) 편집하려고 열 수 없습니다. 그대로 업로드하세요.`,
  },
  list: {
    listLabel: '업로드한 파일',
    loading: '파일을 불러오는 중…',
    empty: '아직 파일이 없습니다.',
    emptyHint: '업로드한 파일이 최신순으로 여기에 표시됩니다.',
    loadMore: '더 보기',
    loadingMore: '더 불러오는 중…',
    end: (count) =>
      count === '1' ? '파일이 하나뿐입니다.' : `파일 ${count}개를 모두 표시했습니다.`,
    retry: '다시 시도',
    copyLink: '링크 복사',
    copyLinkTarget: (name) => `: ${name}`,
    copied: '복사됨',
    copyFailed: '복사하지 못함',
    pending: '업로드 중…',
    openFile: (name) => `${name}(새 탭에서 열림)`,
    uploadedAt: (when) => `${when} 업로드`,
    announceLoaded: (count) => `파일 ${count}개를 표시합니다.`,
    announceAdded: (name) => `${name}을(를) 목록에 추가했습니다.`,
    announceCopied: (name) => `${name} 링크를 복사했습니다.`,
    errorTitle: '파일을 불러오지 못했습니다.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `이 페이지(${origin})에서는 이 키를 쓸 수 없습니다. 키의 허용 출처 목록에 ${origin}이(가) 있어야 합니다.`,
    invalid_key: () => '키를 인식할 수 없습니다. api-key 설정을 확인하세요.',
    missing_auth: () => '키가 설정되지 않았습니다. 공개 키(api-key)를 지정하세요.',
    secret_key: () =>
      '비밀 키가 지정되었습니다. 비밀 키는 웹 페이지에 절대 넣으면 안 됩니다. 공개 키(pk_live_…)를 쓰세요.',
    no_endpoint: () => '주소가 설정되지 않았습니다. API 주소(endpoint)를 지정하세요.',
    too_large: ({ limit }) => `파일이 너무 큽니다. 한도는 ${limit}입니다.`,
    rate_limited: ({ seconds }) =>
      `짧은 시간에 요청이 너무 많습니다. ${seconds}초 후에 다시 시도하세요.`,
    empty_body: () => '빈 파일이라 업로드할 내용이 없습니다.',
    network_error: () =>
      '연결이 끊겼습니다. 연결을 확인한 뒤 다시 시도하세요. 업로드는 멈춘 곳부터 이어집니다.',
    script_missing: () =>
      '이 업로더에 필요한 파일이 없습니다. 페이지를 고쳐야 합니다. 사이트 운영자에게 알려 주세요.',
    type_not_allowed: ({ accept }) => `이 형식의 파일은 받을 수 없습니다. 허용 형식: ${accept}.`,
    too_many_files: ({ max }) => `파일은 최대 ${max}개까지 추가할 수 있습니다.`,
    duplicate_file: () => '이미 목록에 있는 파일입니다.',
    upload_expired: () => '업로드가 끝나기 전에 만료되었습니다. 다시 시도하면 처음부터 시작합니다.',
    refused: ({ code }) =>
      `파일 서비스가 이 요청을 거부했습니다(${code}). 페이지를 고쳐야 합니다. 사이트 운영자에게 알려 주세요.`,
    not_found: () => '이 주소에서 아무것도 찾지 못했습니다. endpoint 설정을 확인하세요.',
    internal_error: () => '파일 서비스에 문제가 생겼습니다. 잠시 후 다시 시도하세요.',
    unavailable: ({ seconds }) => `파일 서비스가 지금 바쁩니다. ${seconds}초 후에 다시 시도하세요.`,
    quota_exceeded: () =>
      '이 파일을 저장할 공간이 없습니다. 사이트 저장 공간이 가득 찼거나 끝나지 않은 업로드가 너무 많습니다. 나중에 다시 시도하거나 사이트 운영자에게 알려 주세요.',
    damaged: () =>
      '파일의 일부가 손상되었거나 불완전하게 도착했습니다. 다시 시도하세요. 그사이 파일이 바뀌었다면 다시 선택하세요.',
    link_expired: () =>
      '이 업로드의 링크가 더 이상 유효하지 않습니다. 다시 시도하면 새 링크를 받습니다.',
    upload_conflict: () =>
      '이 업로드는 이미 끝났습니다. 다른 탭에서 끝났을 수 있습니다. 다시 올리려면 파일을 다시 선택하세요.',
    insufficient_storage: () =>
      '파일 서비스에 지금 공간이 없어 아무것도 저장하지 않았습니다. 나중에 다시 시도하세요.',
    token_expired: () =>
      '업로드 권한이 만료되었습니다. 페이지를 새로 고치거나 다시 로그인한 뒤 다시 시도하세요.',
    token_provider_failed: () =>
      '이 페이지가 업로드 권한을 받지 못했습니다. 다시 시도하거나 페이지를 새로 고치세요. 계속 실패하면 사이트 운영자에게 알려 주세요.',
    token_exhausted: () =>
      '여기에 올릴 수 있는 파일 수나 데이터 양의 한도에 도달해 이 파일은 전송되지 않았습니다.',
    upload_token_required: () =>
      '이 사이트는 허락한 사람의 업로드만 받는데, 이 페이지는 그 허락을 받지 못했습니다. 로그인하거나 사이트 운영자에게 알려 주세요.',
    infected: () =>
      '바이러스 검사에서 이 파일에 악성 코드가 발견되어 거부되었으며 아무것도 저장되지 않았습니다.',
    metadata_unreadable: () =>
      '이 사진에서 위치 정보를 안전하게 제거할 수 없어 아무것도 저장되지 않았습니다. 위치 정보가 없는 사본을 저장한 후 다시 시도하세요.',
    unscannable: () =>
      '바이러스 검사가 이 파일을 끝까지 확인하지 못해(압축을 풀면 너무 커지는 압축 파일 등) 거부되었으며 아무것도 저장되지 않았습니다.',
    import_refused_target: () =>
      '이 링크는 파일 서비스가 가져올 수 없는 주소를 가리킵니다. 공개 링크를 사용하세요.',
    import_http_error: () =>
      '링크의 사이트가 파일을 보내지 않았습니다. 링크를 확인하고 다시 시도하세요.',
    import_timeout: () =>
      '링크의 사이트가 파일을 보내는 데 너무 오래 걸렸습니다. 나중에 다시 시도하세요.',
    import_failed: () => '링크에서 파일을 가져오지 못했습니다. 나중에 다시 시도하세요.',
    import_too_large: ({ limit }) =>
      `링크의 파일이 이 사이트에서 받기에는 너무 큽니다.${limit ? ` 한도는 ${limit}입니다.` : ''}`,
    import_unsupported_type: () => '이 형식의 파일은 여기서 받지 않습니다.',
    unexpected: ({ code, message }) =>
      `문제가 발생했습니다(${code}).${message ? ` ${message}` : ''} 다시 시도하거나 잠시 후에 시도하세요.`,
  },
};

export default ko;
