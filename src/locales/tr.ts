import type { Translation } from '../elements/shared/translation.js';

/** Turkish (Türkçe): a noun after a number stays singular, so no plural forms are needed. */
const tr: Translation = {
  $code: 'tr',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Dosyaları buraya sürükleyin veya',
    dropzoneFolders: 'Dosyaları ya da klasörleri buraya sürükleyin veya',
    browse: 'dosya seçin',
    or: 'veya',
    browseFolder: 'klasör seçin',
    takePhoto: 'Fotoğraf çek',
    dropHere: 'Yüklemek için dosyaları bırakın',
    hintTypes: (types) => `Kabul edilenler: ${types}.`,
    hintMaxSize: (size) => `Dosya başına en çok ${size}.`,
    hintMaxFiles: (count) => `En çok ${count} dosya.`,
    hintFilesLeft: (count) => `${count} dosya daha yükleyebilirsiniz.`,
    hintBytesLeft: (size) => `Toplamda ${size} kaldı.`,
    hintPaste: 'Dosyaları yapıştırabilirsiniz de.',
    queued: 'Yüklenmeyi bekliyor',
    preparing: 'Hazırlanıyor…',
    uploading: (percent) => `Yükleniyor… ${percent}`,
    timeLeft: (duration) => `${duration} kaldı`,
    finishing: 'Tamamlanıyor…',
    done: 'Yüklendi',
    retrying: (seconds) => `${seconds} sn sonra yeniden denenecek…`,
    paused: 'Duraklatıldı',
    upload: 'Yükle',
    retry: 'Yeniden dene',
    cancel: 'İptal',
    remove: 'Kaldır',
    cancelAll: 'Tümünü iptal et',
    pauseUpload: 'Duraklat',
    resumeUpload: 'Sürdür',
    pauseAllUploads: 'Tümünü duraklat',
    resumeAllUploads: 'Tümünü sürdür',
    pauseLabel: (name) => `${name} yüklemesini duraklat`,
    resumeLabel: (name) => `${name} yüklemesini sürdür`,
    retryLabel: (name) => `${name} yüklemesini yeniden dene`,
    cancelLabel: (name) => `${name} yüklemesini iptal et`,
    removeLabel: (name) => `${name} dosyasını kaldır`,
    fileListLabel: 'Dosyalar',
    openFile: (name) => `${name} dosyasını aç (yeni sekmede)`,
    total: (done, count, percent) => `${count} dosyadan ${done} tanesi yüklendi · ${percent}`,
    announceAdded: (count) => `${count} dosya eklendi.`,
    announceDone: (name) => `${name} yüklendi.`,
    announceFailed: (name, reason) => `${name} yüklenemedi: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Tüm yüklemeler bitti: ${succeeded} dosya yüklendi.`
        : `Yüklemeler bitti: ${succeeded} yüklendi, ${failed} başarısız.`,
    interrupted: 'Yarıda kaldı. Kaldığı yerden devam etmek için bu dosyayı yeniden seçin.',
    formUploading: 'Lütfen yüklemeler bitene kadar bekleyin.',
    formRequired: 'Lütfen en az bir dosya yükleyin.',
    linkLabel: 'Dosya bağlantısı',
    linkImport: 'İçe aktar',
    linkInvalid: 'https:// veya http:// ile başlayan bir bağlantı girin.',
    importing: (percent) => `İçe aktarılıyor… ${percent}`,
    editorWaiting: 'Düzenlenmeye veya yüklenmeye hazır',
    editorEdit: 'Düzenle',
    editorEditLabel: (name) => `${name} dosyasını düzenle`,
    editorUpload: 'Yükle',
    editorUploadLabel: (name) => `${name} dosyasını olduğu gibi yükle`,
    editorTitle: (name) => `${name} dosyasını düzenle`,
    editorHelp:
      'Ok tuşları kırpma alanını taşır; Shift ile ok tuşları boyutunu değiştirir. Escape iptal eder.',
    editorCropArea: 'Kırpma alanı',
    editorAspect: 'En-boy oranı',
    editorFree: 'Serbest',
    editorRotateLeft: 'Sola döndür',
    editorRotateRight: 'Sağa döndür',
    editorFlipX: 'Yatay çevir',
    editorFlipY: 'Dikey çevir',
    editorZoomIn: 'Yakınlaştır',
    editorZoomOut: 'Uzaklaştır',
    editorReset: 'Sıfırla',
    editorSave: 'Kaydet',
    editorAnnounce: (degrees, width, height) =>
      `${degrees} derece döndürüldü. Kırpma alanı ${width} × ${height} piksel.`,
    formHeld: 'Önce bekleyen görselleri düzenleyin veya yükleyin.',
    editorUnreadable: (name) => `${name} düzenlemek için açılamadı. Olduğu gibi yükleyin.`,
  },
  list: {
    listLabel: 'Yüklenen dosyalar',
    loading: 'Dosyalar yükleniyor…',
    empty: 'Henüz dosya yok.',
    emptyHint: 'Yüklediğiniz dosyalar burada, en yenisi başta olmak üzere görünür.',
    loadMore: 'Daha fazla göster',
    loadingMore: 'Daha fazlası yükleniyor…',
    end: (count, form) =>
      form === 'one' ? 'Tek dosya bu.' : `Dosyaların hepsi bu kadar (${count}).`,
    retry: 'Yeniden dene',
    copyLink: 'Bağlantıyı kopyala',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Kopyalandı',
    copyFailed: 'Kopyalanamadı',
    pending: 'Yükleniyor…',
    openFile: (name) => `${name} (yeni sekmede açılır)`,
    uploadedAt: (when) => `Yüklenme: ${when}`,
    announceLoaded: (count) => `${count} dosya gösteriliyor.`,
    announceAdded: (name) => `${name} listeye eklendi.`,
    announceCopied: (name) => `${name} bağlantısı kopyalandı.`,
    errorTitle: 'Dosyalar yüklenemedi.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Bu sayfa (${origin}) bu anahtarı kullanamaz. Anahtarın izin verilen kaynaklar listesinde ${origin} bulunmalıdır.`,
    invalid_key: () => 'Anahtar tanınmadı. api-key ayarını kontrol edin.',
    missing_auth: () => 'Anahtar ayarlanmamış. Herkese açık bir anahtar verin (api-key).',
    secret_key: () =>
      'Gizli bir anahtar verilmiş; gizli anahtar asla bir web sayfasında bulunmamalıdır. Herkese açık anahtarı kullanın (pk_live_…).',
    no_endpoint: () => 'Adres ayarlanmamış. API adresini verin (endpoint).',
    too_large: ({ limit }) => `Bu dosya çok büyük. Sınır ${limit}.`,
    rate_limited: ({ seconds }) =>
      `Kısa sürede çok fazla istek yapıldı. ${seconds} saniye sonra yeniden deneyin.`,
    empty_body: () => 'Bu dosya boş; yüklenecek bir şey yok.',
    network_error: () =>
      'Bağlantı koptu. Bağlantınızı kontrol edip yeniden deneyin; yüklemeler kaldıkları yerden sürer.',
    script_missing: () =>
      'Bu yükleyicinin ihtiyaç duyduğu bir dosya eksik. Sayfanın düzeltilmesi gerekiyor: lütfen site sahibine bildirin.',
    type_not_allowed: ({ accept }) =>
      `Bu dosya türü burada kabul edilmiyor. Kabul edilenler: ${accept}.`,
    too_many_files: ({ max }) => `En çok ${max} dosya ekleyebilirsiniz.`,
    duplicate_file: () => 'Bu dosya zaten listede.',
    upload_expired: () =>
      'Bu yüklemenin süresi bitmeden doldu. Yeniden başlatmak için yeniden deneyin.',
    refused: ({ code }) =>
      `Dosya hizmeti bu isteği reddetti (${code}). Sayfanın düzeltilmesi gerekiyor: lütfen site sahibine bildirin.`,
    not_found: () => 'Bu adreste hiçbir şey bulunamadı. endpoint ayarını kontrol edin.',
    internal_error: () => 'Dosya hizmetinde bir sorun oluştu. Birazdan yeniden deneyin.',
    unavailable: ({ seconds }) =>
      `Dosya hizmeti şu anda yoğun. ${seconds} saniye sonra yeniden deneyin.`,
    quota_exceeded: () =>
      'Bu dosya için yer yok: sitenin depolama alanı dolu ya da çok fazla bitmemiş yükleme var. Daha sonra yeniden deneyin veya site sahibine bildirin.',
    damaged: () =>
      'Dosyanın bir kısmı hasarlı ya da eksik ulaştı. Yeniden deneyin; dosya bu arada değiştiyse yeniden seçin.',
    link_expired: () =>
      'Bu yüklemenin bağlantısı artık geçerli değil. Yenisini almak için yeniden deneyin.',
    upload_conflict: () =>
      'Bu yükleme zaten tamamlandı, belki başka bir sekmede. Yeniden yüklemek için dosyayı yeniden seçin.',
    insufficient_storage: () =>
      'Dosya hizmetinde şu anda yer yok ve hiçbir şey saklanmadı. Daha sonra yeniden deneyin.',
    token_expired: () =>
      'Dosya yükleme izniniz sona erdi. Sayfayı yenileyin ya da yeniden oturum açın, sonra tekrar deneyin.',
    token_provider_failed: () =>
      'Bu sayfa dosya yükleme izni alamadı. Tekrar deneyin ya da sayfayı yenileyin; sorun sürerse site sahibine bildirin.',
    token_exhausted: () =>
      'Buraya yükleyebileceğiniz dosya ya da veri sınırına ulaştınız, bu yüzden bu dosya gönderilmedi.',
    upload_token_required: () =>
      'Bu site yalnızca izin verdiği kişilerden yükleme kabul ediyor ve bu sayfa o izni almadı. Oturum açın ya da site sahibine haber verin.',
    infected: () =>
      'Virüs taraması bu dosyada kötü amaçlı yazılım buldu: dosya reddedildi ve hiçbir şey saklanmadı.',
    metadata_unreadable: () =>
      'Bu fotoğraftaki konum bilgisi güvenle kaldırılamadı, bu yüzden hiçbir şey saklanmadı. Konumsuz bir kopya kaydedip yeniden deneyin.',
    unscannable: () =>
      'Virüs taraması bu dosyayı sonuna kadar denetleyemedi (örneğin açıldığında çok büyüyen bir arşiv): dosya reddedildi ve hiçbir şey saklanmadı.',
    import_refused_target: () =>
      'Bu bağlantı, dosya hizmetinin indirme yapamayacağı bir adresi gösteriyor. Herkese açık bir bağlantı kullanın.',
    import_http_error: () =>
      'Bağlantıdaki site dosyayı vermedi. Bağlantıyı kontrol edip yeniden deneyin.',
    import_timeout: () =>
      'Bağlantıdaki site dosyayı göndermekte çok geç kaldı. Daha sonra yeniden deneyin.',
    import_failed: () => 'Dosya bağlantıdan alınamadı. Daha sonra yeniden deneyin.',
    import_too_large: ({ limit }) =>
      `Bağlantıdaki dosya bu site için çok büyük.${limit ? ` Sınır ${limit}.` : ''}`,
    import_unsupported_type: () => 'Bu dosya türü burada kabul edilmiyor.',
    unexpected: ({ code, message }) =>
      `Bir şeyler ters gitti (${code}).${message ? ` ${message}` : ''} Yeniden deneyin ya da daha sonra tekrar deneyin.`,
  },
};

export default tr;
