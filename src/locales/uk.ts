import type { PluralForm, Translation } from '../elements/shared/translation.js';

/** "файл", "файли", "файлів": Ukrainian has a form for one (1, 21…), a few (2–4…) and many. */
const files = (form: PluralForm) => (form === 'one' ? 'файл' : form === 'few' ? 'файли' : 'файлів');

/** Ukrainian (українська). */
const uk: Translation = {
  $code: 'uk',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Перетягніть файли сюди або',
    dropzoneFolders: 'Перетягніть файли чи теки сюди або',
    browse: 'виберіть файли',
    or: 'або',
    browseFolder: 'виберіть теку',
    takePhoto: 'Зробити фото',
    dropHere: 'Відпустіть файли, щоб завантажити їх',
    hintTypes: (types) => `Дозволено: ${types}.`,
    hintMaxSize: (size) => `До ${size} на файл.`,
    hintMaxFiles: (count, form) => `Не більше ${count} ${files(form)}.`,
    hintFilesLeft: (count, form) => `Можна додати ще ${count} ${files(form)}.`,
    hintBytesLeft: (size) => `Загалом залишилося ${size}.`,
    hintPaste: 'Файли можна також вставити.',
    queued: 'Очікує завантаження',
    preparing: 'Підготовка…',
    uploading: (percent) => `Завантаження… ${percent}`,
    timeLeft: (duration) => `ще ${duration}`,
    finishing: 'Завершення…',
    done: 'Завантажено',
    retrying: (seconds) => `Нова спроба за ${seconds} с…`,
    paused: 'Призупинено',
    upload: 'Завантажити',
    retry: 'Повторити',
    cancel: 'Скасувати',
    remove: 'Вилучити',
    cancelAll: 'Скасувати все',
    pauseUpload: 'Призупинити',
    resumeUpload: 'Продовжити',
    pauseAllUploads: 'Призупинити все',
    resumeAllUploads: 'Продовжити все',
    pauseLabel: (name) => `Призупинити завантаження ${name}`,
    resumeLabel: (name) => `Продовжити завантаження ${name}`,
    retryLabel: (name) => `Повторити завантаження ${name}`,
    cancelLabel: (name) => `Скасувати завантаження ${name}`,
    removeLabel: (name) => `Вилучити ${name}`,
    fileListLabel: 'Файли',
    openFile: (name) => `Відкрити ${name} (у новій вкладці)`,
    total: (done, count, percent) => `Завантажено ${done} з ${count} · ${percent}`,
    announceAdded: (count, form) => `Додано ${count} ${files(form)}.`,
    announceDone: (name) => `${name} завантажено.`,
    announceFailed: (name, reason) => `${name} не завантажено: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Усі завантаження завершено. Успішно: ${succeeded}.`
        : `Завантаження завершено. Успішно: ${succeeded}, з помилкою: ${failed}.`,
    interrupted: 'Перервано. Виберіть цей файл ще раз, щоб продовжити з місця зупинки.',
    formUploading: 'Зачекайте, доки завершаться завантаження.',
    formRequired: 'Завантажте принаймні один файл.',
    linkLabel: 'Посилання на файл',
    linkImport: 'Імпортувати',
    linkInvalid: 'Введіть посилання, що починається з https:// або http://.',
    importing: (percent) => `Імпорт… ${percent}`,
    editorWaiting: 'Можна редагувати або завантажити',
    editorEdit: 'Редагувати',
    editorEditLabel: (name) => `Редагувати ${name}`,
    editorUpload: 'Завантажити',
    editorUploadLabel: (name) => `Завантажити ${name} без змін`,
    editorTitle: (name) => `Редагування ${name}`,
    editorHelp:
      'Стрілки переміщують область кадрування, Shift зі стрілками змінює її розмір. Escape скасовує.',
    editorCropArea: 'Область кадрування',
    editorAspect: 'Пропорції',
    editorFree: 'Вільні',
    editorRotateLeft: 'Повернути ліворуч',
    editorRotateRight: 'Повернути праворуч',
    editorFlipX: 'Віддзеркалити по горизонталі',
    editorFlipY: 'Віддзеркалити по вертикалі',
    editorZoomIn: 'Збільшити',
    editorZoomOut: 'Зменшити',
    editorReset: 'Скинути',
    editorSave: 'Зберегти',
    editorAnnounce: (degrees, width, height) =>
      `Повернуто на ${degrees}°. Область кадрування ${width} × ${height} пікселів.`,
    editorUnreadable: (name) =>
      `Не вдалося відкрити ${name} для редагування. Завантажте файл без змін.`,
  },
  list: {
    listLabel: 'Завантажені файли',
    loading: 'Завантаження списку файлів…',
    empty: 'Файлів ще немає.',
    emptyHint: 'Завантажені файли з’являться тут, новіші першими.',
    loadMore: 'Показати більше',
    loadingMore: 'Завантаження…',
    end: (count, form) => (form === 'one' ? 'Це єдиний файл.' : `Це всі файли (${count}).`),
    retry: 'Спробувати ще раз',
    copyLink: 'Копіювати посилання',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Скопійовано',
    copyFailed: 'Не вдалося скопіювати',
    pending: 'Завантаження…',
    openFile: (name) => `${name} (відкриється в новій вкладці)`,
    uploadedAt: (when) => `Завантажено ${when}`,
    announceLoaded: (count, form) => `Показано ${count} ${files(form)}.`,
    announceAdded: (name) => `${name} додано до списку.`,
    announceCopied: (name) => `Посилання на ${name} скопійовано.`,
    errorTitle: 'Не вдалося завантажити список файлів.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Ця сторінка (${origin}) не може використовувати цей ключ. Список дозволених джерел ключа має містити ${origin}.`,
    invalid_key: () => 'Ключ не розпізнано. Перевірте параметр api-key.',
    missing_auth: () => 'Ключ не задано. Укажіть публічний ключ (api-key).',
    secret_key: () =>
      'Указано секретний ключ, а він ніколи не має бути на вебсторінці. Використовуйте публічний ключ (pk_live_…).',
    no_endpoint: () => 'Адресу не задано. Укажіть адресу API (endpoint).',
    too_large: ({ limit }) => `Цей файл завеликий. Обмеження: ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Забагато запитів за короткий час. Спробуйте ще раз за ${seconds} ${form === 'one' ? 'секунду' : form === 'few' ? 'секунди' : 'секунд'}.`,
    empty_body: () => 'Цей файл порожній, тож завантажувати нічого.',
    network_error: () =>
      'З’єднання втрачено. Перевірте його й спробуйте ще раз; завантаження продовжаться з місця зупинки.',
    script_missing: () =>
      'Бракує файлу, потрібного цьому завантажувачу. Сторінку треба виправити: повідомте власника сайту.',
    type_not_allowed: ({ accept }) => `Такий тип файлу тут не приймається. Дозволено: ${accept}.`,
    too_many_files: ({ max, form }) => `Можна додати не більше ${max} ${files(form)}.`,
    duplicate_file: () => 'Цей файл уже є в списку.',
    upload_expired: () =>
      'Час цього завантаження минув, перш ніж воно завершилося. Повторіть, щоб почати знову.',
    refused: ({ code }) =>
      `Файловий сервіс відхилив цей запит (${code}). Сторінку треба виправити: повідомте власника сайту.`,
    not_found: () => 'За цією адресою нічого не знайдено. Перевірте параметр endpoint.',
    internal_error: () => 'У файловому сервісі сталася помилка. Спробуйте ще раз за мить.',
    unavailable: ({ seconds, form }) =>
      `Файловий сервіс зараз перевантажений. Спробуйте ще раз за ${seconds} ${form === 'one' ? 'секунду' : form === 'few' ? 'секунди' : 'секунд'}.`,
    quota_exceeded: () =>
      'Для цього файлу немає місця: сховище сайту заповнене або має забагато незавершених завантажень. Спробуйте пізніше або повідомте власника сайту.',
    damaged: () =>
      'Частина файлу надійшла пошкодженою або неповною. Повторіть; якщо файл тим часом змінився, виберіть його знову.',
    link_expired: () =>
      'Посилання цього завантаження більше не дійсне. Повторіть, щоб отримати нове.',
    upload_conflict: () =>
      'Це завантаження вже завершено, можливо, в іншій вкладці. Виберіть файл знову, щоб завантажити його заново.',
    insufficient_storage: () =>
      'У файловому сервісі зараз немає місця, і нічого не збережено. Спробуйте пізніше.',
    token_expired: () =>
      'Ваш дозвіл на завантаження файлів закінчився. Оновіть сторінку або увійдіть знову, а потім повторіть спробу.',
    token_provider_failed: () =>
      'Ця сторінка не змогла отримати дозвіл на завантаження файлів. Спробуйте ще раз або оновіть сторінку; якщо це повторюється, повідомте власника сайту.',
    token_exhausted: () =>
      'Ви досягли межі кількості файлів або обсягу даних, які можна тут завантажити, тож цей файл не надіслано.',
    upload_token_required: () =>
      'Цей сайт приймає файли лише від людей, яким він це дозволив, а ця сторінка такого дозволу не отримала. Увійдіть або повідомте власника сайту.',
    infected: () =>
      'Антивірусна перевірка знайшла в цьому файлі шкідливу програму: файл відхилено, нічого не збережено.',
    metadata_unreadable: () =>
      'Не вдалося надійно вилучити геодані з цього фото, тому нічого не збережено. Збережіть копію без геоданих і спробуйте ще раз.',
    unscannable: () => 'Антивірусна перевірка не завершилася: файл відхилено, нічого не збережено.',
    import_refused_target: () =>
      'Сервіс не може брати файли з цієї адреси. Дайте публічне посилання.',
    import_http_error: () => 'Сайт не віддав файл. Перевірте посилання й повторіть.',
    import_timeout: () => 'Сайт надто довго надсилав файл. Спробуйте пізніше.',
    import_failed: () => 'Не вдалося отримати файл. Спробуйте пізніше.',
    import_too_large: ({ limit }) =>
      `Файл за посиланням завеликий для цього сайту.${limit ? ` Обмеження: ${limit}.` : ''}`,
    import_unsupported_type: () => 'Такий тип файлів тут не приймається.',
    unexpected: ({ code, message }) =>
      `Щось пішло не так (${code}).${message ? ` ${message}` : ''} Повторіть зараз або пізніше.`,
  },
};

export default uk;
