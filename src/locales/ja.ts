import type { Translation } from '../elements/shared/translation.js';

/** Japanese (日本語): no plural forms; counts take the counter 件 or 個. */
const ja: Translation = {
  $code: 'ja',
  $dir: 'ltr',
  uploader: {
    dropzone: 'ここにファイルをドラッグするか、',
    dropzoneFolders: 'ここにファイルやフォルダをドラッグするか、',
    browse: 'ファイルを選択',
    or: 'または',
    browseFolder: 'フォルダを選択',
    takePhoto: '写真を撮る',
    dropHere: 'ドロップしてアップロード',
    hintTypes: (types) => `使用できる形式: ${types}。`,
    hintMaxSize: (size) => `1ファイルあたり${size}まで。`,
    hintMaxFiles: (count) => `最大${count}個まで。`,
    hintFilesLeft: (count) => `あと${count}個までアップロードできます。`,
    hintBytesLeft: (size) => `残りは合計${size}です。`,
    hintPaste: 'ファイルは貼り付けることもできます。',
    queued: 'アップロード待ち',
    preparing: '準備中…',
    uploading: (percent) => `アップロード中… ${percent}`,
    timeLeft: (duration) => `残り ${duration}`,
    finishing: '仕上げ中…',
    done: 'アップロード完了',
    retrying: (seconds) => `${seconds}秒後に再試行します…`,
    paused: '一時停止中',
    upload: 'アップロード',
    retry: '再試行',
    cancel: 'キャンセル',
    remove: '削除',
    cancelAll: 'すべてキャンセル',
    pauseUpload: '一時停止',
    resumeUpload: '再開',
    pauseAllUploads: 'すべて一時停止',
    resumeAllUploads: 'すべて再開',
    pauseLabel: (name) => `${name} のアップロードを一時停止`,
    resumeLabel: (name) => `${name} のアップロードを再開`,
    retryLabel: (name) => `${name} のアップロードを再試行`,
    cancelLabel: (name) => `${name} のアップロードをキャンセル`,
    removeLabel: (name) => `${name} を削除`,
    fileListLabel: 'ファイル',
    openFile: (name) => `${name} を開く(新しいタブ)`,
    total: (done, count, percent) => `${count}件中${done}件完了 · ${percent}`,
    announceAdded: (count) => `${count}件のファイルを追加しました。`,
    announceDone: (name) => `${name} をアップロードしました。`,
    announceFailed: (name, reason) => `${name} をアップロードできませんでした: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `すべてのアップロードが終わりました。成功: ${succeeded}件。`
        : `アップロードが終わりました。成功: ${succeeded}件、失敗: ${failed}件。`,
    interrupted: '中断されました。このファイルをもう一度選ぶと、止まったところから再開します。',
    formUploading: 'アップロードが終わるまでお待ちください。',
    formRequired: 'ファイルを1つ以上アップロードしてください。',
    linkLabel: 'ファイルへのリンク',
    linkImport: 'インポート',
    linkInvalid: 'https:// または http:// で始まるリンクを入力してください。',
    importing: (percent) => `インポート中… ${percent}`,
    editorWaiting: '編集またはアップロードできます',
    editorEdit: '編集',
    editorEditLabel: (name) => `${name} を編集`,
    editorUpload: 'アップロード',
    editorUploadLabel: (name) => `${name} をそのままアップロード`,
    editorTitle: (name) => `${name} を編集`,
    editorHelp:
      '矢印キーで切り抜き範囲を移動し、Shift＋矢印キーで大きさを変えます。Esc でキャンセルします。',
    editorCropArea: '切り抜き範囲',
    editorAspect: '縦横比',
    editorFree: '自由',
    editorRotateLeft: '左に回転',
    editorRotateRight: '右に回転',
    editorFlipX: '左右反転',
    editorFlipY: '上下反転',
    editorZoomIn: '拡大',
    editorZoomOut: '縮小',
    editorReset: 'リセット',
    editorSave: '保存',
    editorAnnounce: (degrees, width, height) =>
      `${degrees}度回転。切り抜き範囲は ${width} × ${height} ピクセル。`,
    formHeld: '待機中の画像を先に編集するか、アップロードしてください。',
    editorUnreadable: (name) =>
      `${name} を編集用に開けませんでした。そのままアップロードしてください。`,
  },
  list: {
    listLabel: 'アップロード済みのファイル',
    loading: 'ファイルを読み込み中…',
    empty: 'まだファイルはありません。',
    emptyHint: 'アップロードしたファイルが新しい順にここに表示されます。',
    loadMore: 'さらに読み込む',
    loadingMore: '読み込み中…',
    end: (count) => (count === '1' ? 'ファイルはこれだけです。' : `全${count}件です。`),
    retry: 'もう一度試す',
    copyLink: 'リンクをコピー',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'コピーしました',
    copyFailed: 'コピーできませんでした',
    pending: 'アップロード中…',
    openFile: (name) => `${name}(新しいタブで開きます)`,
    uploadedAt: (when) => `アップロード: ${when}`,
    announceLoaded: (count) => `${count}件のファイルを表示しています。`,
    announceAdded: (name) => `${name} を一覧に追加しました。`,
    announceCopied: (name) => `${name} のリンクをコピーしました。`,
    errorTitle: 'ファイルを読み込めませんでした。',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `このページ(${origin})ではこのキーを使えません。キーの許可オリジンに ${origin} を含めてください。`,
    invalid_key: () => 'キーが認識されません。api-key の設定を確認してください。',
    missing_auth: () => 'キーが設定されていません。公開キー(api-key)を指定してください。',
    secret_key: () =>
      'シークレットキーが指定されています。シークレットキーはウェブページに載せてはいけません。公開キー(pk_live_…)を使ってください。',
    no_endpoint: () => 'アドレスが設定されていません。API のアドレス(endpoint)を指定してください。',
    too_large: ({ limit }) => `このファイルは大きすぎます。上限は${limit}です。`,
    rate_limited: ({ seconds }) =>
      `短時間にリクエストが多すぎます。${seconds}秒後にもう一度お試しください。`,
    empty_body: () => 'このファイルは空なので、アップロードするものがありません。',
    network_error: () =>
      '接続が切れました。接続を確認してもう一度お試しください。アップロードは止まったところから再開します。',
    script_missing: () =>
      'このアップローダーに必要なファイルが見つかりません。ページの修正が必要です。サイトの管理者に知らせてください。',
    type_not_allowed: ({ accept }) =>
      `この種類のファイルは受け付けていません。使用できる形式: ${accept}。`,
    too_many_files: ({ max }) => `追加できるファイルは最大${max}個です。`,
    duplicate_file: () => 'このファイルはすでに一覧にあります。',
    upload_expired: () =>
      'このアップロードは完了前に期限切れになりました。再試行すると最初からやり直します。',
    refused: ({ code }) =>
      `ファイルサービスがこのリクエストを拒否しました(${code})。ページの修正が必要です。サイトの管理者に知らせてください。`,
    not_found: () =>
      'このアドレスには何も見つかりませんでした。endpoint の設定を確認してください。',
    internal_error: () =>
      'ファイルサービスで問題が発生しました。少し待ってからもう一度お試しください。',
    unavailable: ({ seconds }) =>
      `ファイルサービスが混み合っています。${seconds}秒後にもう一度お試しください。`,
    quota_exceeded: () =>
      'このファイルを保存する空きがありません。サイトの保存容量がいっぱいか、未完了のアップロードが多すぎます。しばらくしてから再試行するか、サイトの管理者に知らせてください。',
    damaged: () =>
      'ファイルの一部が壊れた状態か不完全な状態で届きました。再試行してください。その間にファイルが変わった場合は、もう一度選んでください。',
    link_expired: () =>
      'このアップロードのリンクは無効になりました。再試行すると新しいリンクを取得します。',
    upload_conflict: () =>
      'このアップロードは、別のタブなどですでに完了しています。もう一度アップロードするには、ファイルを選び直してください。',
    insufficient_storage: () =>
      'ファイルサービスに現在空きがなく、何も保存されませんでした。しばらくしてからお試しください。',
    token_expired: () =>
      'アップロードの許可の有効期限が切れました。ページを再読み込みするか、もう一度サインインしてから再試行してください。',
    token_provider_failed: () =>
      'このページはアップロードの許可を取得できませんでした。再試行するか、ページを再読み込みしてください。解決しない場合は、サイトの管理者にお知らせください。',
    token_exhausted: () =>
      'ここでアップロードできるファイル数またはデータ量の上限に達したため、このファイルは送信されませんでした。',
    upload_token_required: () =>
      'このサイトは許可した人からのアップロードしか受け付けませんが、このページはその許可を受けていません。サインインするか、サイトの管理者に知らせてください。',
    infected: () =>
      'ウイルス検査でこのファイルからマルウェアが見つかったため、受け付けられず、何も保存されませんでした。',
    metadata_unreadable: () =>
      'この写真から位置情報を確実に削除できなかったため、何も保存されませんでした。位置情報のないコピーを保存して、もう一度お試しください。',
    unscannable: () =>
      'ウイルス検査がこのファイルの確認を最後まで終えられなかったため（展開すると大きくなりすぎるアーカイブなど）、受け付けられず、何も保存されませんでした。',
    import_refused_target: () =>
      'このリンクは、ファイルサービスが取得できないアドレスを指しています。公開されているリンクを使ってください。',
    import_http_error: () =>
      'リンク先のサイトがファイルを返しませんでした。リンクを確認して、もう一度お試しください。',
    import_timeout: () =>
      'リンク先のサイトからの送信に時間がかかりすぎました。後でもう一度お試しください。',
    import_failed: () => 'リンクからファイルを取得できませんでした。後でもう一度お試しください。',
    import_too_large: ({ limit }) =>
      `リンク先のファイルは、このサイトには大きすぎます。${limit ? `上限は${limit}です。` : ''}`,
    import_unsupported_type: () => 'この種類のファイルはここでは受け付けていません。',
    unexpected: ({ code, message }) =>
      `問題が発生しました(${code})。${message ? `${message} ` : ''}再試行するか、しばらくしてからお試しください。`,
  },
};

export default ja;
