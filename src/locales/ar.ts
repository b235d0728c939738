import type { PluralForm, Translation } from '../elements/shared/translation.js';

/**
 * "file" counted, in Arabic's six plural forms: none, one (ملف واحد), two (ملفان), three to
 * ten (ملفات), eleven to ninety-nine (ملفًا), a hundred and more (ملف).
 */
const files = (count: string, form: PluralForm) =>
  ({
    zero: 'لا ملفات',
    one: 'ملف واحد',
    two: 'ملفان',
    few: `${count} ملفات`,
    many: `${count} ملفًا`,
  })[form as string] ?? `${count} ملف`;

/** "second" counted, as after بعد ("in"). */
const seconds = (count: string, form: PluralForm) =>
  ({
    one: 'ثانية واحدة',
    two: 'ثانيتين',
    few: `${count} ثوانٍ`,
  })[form as string] ?? `${count} ثانية`;

/** Arabic (العربية), written right to left. */
const ar: Translation = {
  $code: 'ar',
  $dir: 'rtl',
  uploader: {
    dropzone: 'اسحب الملفات إلى هنا، أو',
    dropzoneFolders: 'اسحب الملفات أو المجلدات إلى هنا، أو',
    browse: 'اختر ملفات',
    or: 'أو',
    browseFolder: 'اختر مجلدًا',
    takePhoto: 'التقط صورة',
    dropHere: 'أفلت الملفات لرفعها',
    hintTypes: (types) => `الأنواع المقبولة: ${types}.`,
    hintMaxSize: (size) => `حتى ${size} لكل ملف.`,
    hintMaxFiles: (count, form) => `الحد الأقصى: ${files(count, form)}.`,
    hintFilesLeft: (count, form) => `المتبقي: ${files(count, form)}.`,
    hintBytesLeft: (size) => `المتبقي إجمالًا: ${size}.`,
    hintPaste: 'يمكنك أيضًا لصق الملفات.',
    queued: 'في انتظار الرفع',
    preparing: 'جارٍ التحضير…',
    uploading: (percent) => `جارٍ الرفع… ${percent}`,
    timeLeft: (duration) => `يتبقى ${duration}`,
    finishing: 'جارٍ الإنهاء…',
    done: 'تم الرفع',
    retrying: (count, form) => `إعادة المحاولة بعد ${seconds(count, form)}…`,
    paused: 'متوقف مؤقتًا',
    upload: 'رفع',
    retry: 'إعادة المحاولة',
    cancel: 'إلغاء',
    remove: 'إزالة',
    cancelAll: 'إلغاء الكل',
    pauseUpload: 'إيقاف مؤقت',
    resumeUpload: 'استئناف',
    pauseAllUploads: 'إيقاف الكل مؤقتًا',
    resumeAllUploads: 'استئناف الكل',
    pauseLabel: (name) => `إيقاف رفع ${name} مؤقتًا`,
    resumeLabel: (name) => `استئناف رفع ${name}`,
    retryLabel: (name) => `إعادة محاولة رفع ${name}`,
    cancelLabel: (name) => `إلغاء رفع ${name}`,
    removeLabel: (name) => `إزالة ${name}`,
    fileListLabel: 'الملفات',
    openFile: (name) => `فتح ${name} (في علامة تبويب جديدة)`,
    total: (done, count, percent) => `تم رفع ${done} من ${count} · ${percent}`,
    announceAdded: (count, form) => `تمت إضافة ${files(count, form)}.`,
    announceDone: (name) => `تم رفع ${name}.`,
    announceFailed: (name, reason) => `تعذّر رفع ${name}: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `انتهت كل عمليات الرفع. الناجحة: ${succeeded}.`
        : `انتهت عمليات الرفع. الناجحة: ${succeeded}، والفاشلة: ${failed}.`,
    interrupted: 'توقف الرفع. اختر هذا الملف مرة أخرى لمتابعته من حيث توقف.',
    formUploading: 'يُرجى الانتظار حتى تنتهي عمليات الرفع.',
    formRequired: 'يُرجى رفع ملف واحد على الأقل.',
    linkLabel: 'رابط إلى ملف',
    linkImport: 'استيراد',
    linkInvalid: 'أدخل رابطًا يبدأ بـ https://‎ أو http://‎.',
    importing: (percent) => `جارٍ الاستيراد… ${percent}`,
    editorWaiting: 'جاهزة للتعديل أو الرفع',
    editorEdit: 'تعديل',
    editorEditLabel: (name) => `تعديل ${name}`,
    editorUpload: 'رفع',
    editorUploadLabel: (name) => `رفع ${name} كما هي`,
    editorTitle: (name) => `تعديل ${name}`,
    editorHelp: 'تحرّك مفاتيح الأسهم منطقة القص، ويغيّر Shift مع الأسهم حجمها. يلغي Escape التعديل.',
    editorCropArea: 'منطقة القص',
    editorAspect: 'النسبة',
    editorFree: 'حرّة',
    editorRotateLeft: 'تدوير لليسار',
    editorRotateRight: 'تدوير لليمين',
    editorFlipX: 'قلب أفقي',
    editorFlipY: 'قلب عمودي',
    editorZoomIn: 'تكبير',
    editorZoomOut: 'تصغير',
    editorReset: 'إعادة الضبط',
    editorSave: 'حفظ',
    editorAnnounce: (degrees, width, height) =>
      `تم التدوير ${degrees} درجة. منطقة القص ${width} × ${height} بكسل.`,
    formHeld: 'عدّل الصور المنتظرة أو ارفعها أولًا.',
    editorUnreadable: (name) => `تعذّر فتح ${name} للتعديل. ارفعها كما هي.`,
  },
  list: {
    listLabel: 'الملفات المرفوعة',
    loading: 'جارٍ تحميل الملفات…',
    empty: 'لا توجد ملفات بعد.',
    emptyHint: 'تظهر هنا الملفات التي ترفعها، الأحدث أولًا.',
    loadMore: 'تحميل المزيد',
    loadingMore: 'جارٍ تحميل المزيد…',
    end: (count, form) => (form === 'one' ? 'هذا هو الملف الوحيد.' : `هذه كل الملفات (${count}).`),
    retry: 'حاول مرة أخرى',
    copyLink: 'نسخ الرابط',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'تم النسخ',
    copyFailed: 'تعذّر النسخ',
    pending: 'جارٍ الرفع…',
    openFile: (name) => `${name} (يُفتح في علامة تبويب جديدة)`,
    uploadedAt: (when) => `رُفع ${when}`,
    announceLoaded: (count, form) =>
      form === 'zero' ? 'لا توجد ملفات لعرضها.' : `يُعرض الآن ${files(count, form)}.`,
    announceAdded: (name) => `تمت إضافة ${name} إلى القائمة.`,
    announceCopied: (name) => `تم نسخ رابط ${name}.`,
    errorTitle: 'تعذّر تحميل الملفات.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `لا يحق لهذه الصفحة (${origin}) استخدام هذا المفتاح. يجب أن تتضمن قائمة المصادر المسموح بها للمفتاح ${origin}.`,
    invalid_key: () => 'لم يُتعرّف على المفتاح. تحقق من إعداد api-key.',
    missing_auth: () => 'لم يُضبط أي مفتاح. أعطِ مفتاحًا عامًا (api-key).',
    secret_key: () =>
      'أُعطي مفتاح سري، والمفتاح السري يجب ألا يوضع في صفحة ويب أبدًا. استخدم المفتاح العام (pk_live_…).',
    no_endpoint: () => 'لم يُضبط أي عنوان. أعطِ عنوان واجهة API (endpoint).',
    too_large: ({ limit }) => `هذا الملف كبير جدًا. الحد الأقصى ${limit}.`,
    rate_limited: ({ seconds: count, form }) =>
      `طلبات كثيرة في وقت قصير. حاول مرة أخرى بعد ${seconds(count, form)}.`,
    empty_body: () => 'هذا الملف فارغ، فلا يوجد ما يُرفع.',
    network_error: () => 'انقطع الاتصال. تحقق منه وحاول مرة أخرى؛ يُستأنف الرفع من حيث توقف.',
    script_missing: () =>
      'ملف تحتاجه أداة الرفع هذه مفقود. تحتاج الصفحة إلى إصلاح: أخبر مالك الموقع.',
    type_not_allowed: ({ accept }) =>
      `هذا النوع من الملفات غير مقبول هنا. الأنواع المقبولة: ${accept}.`,
    too_many_files: ({ max, form }) => `يمكنك إضافة ${files(max, form)} على الأكثر.`,
    duplicate_file: () => 'هذا الملف موجود في القائمة بالفعل.',
    upload_expired: () => 'انتهت صلاحية هذا الرفع قبل اكتماله. أعد المحاولة لبدئه من جديد.',
    refused: ({ code }) =>
      `رفضت خدمة الملفات هذا الطلب (${code}). تحتاج الصفحة إلى إصلاح: أخبر مالك الموقع.`,
    not_found: () => 'لم يُعثر على شيء في هذا العنوان. تحقق من إعداد endpoint.',
    internal_error: () => 'واجهت خدمة الملفات مشكلة. حاول مرة أخرى بعد قليل.',
    unavailable: ({ seconds: count, form }) =>
      `خدمة الملفات مشغولة الآن. حاول مرة أخرى بعد ${seconds(count, form)}.`,
    quota_exceeded: () =>
      'لا توجد مساحة لهذا الملف: مساحة تخزين الموقع ممتلئة أو فيها عمليات رفع غير مكتملة كثيرة. حاول لاحقًا أو أخبر مالك الموقع.',
    damaged: () =>
      'وصل جزء من الملف تالفًا أو ناقصًا. أعد المحاولة؛ وإن تغيّر الملف في الأثناء فاختره من جديد.',
    link_expired: () => 'لم يعد رابط هذا الرفع صالحًا. أعد المحاولة للحصول على رابط جديد.',
    upload_conflict: () =>
      'اكتمل هذا الرفع من قبل، ربما في علامة تبويب أخرى. اختر الملف من جديد لرفعه مرة أخرى.',
    insufficient_storage: () => 'لا توجد مساحة لدى خدمة الملفات الآن، ولم يُحفظ شيء. حاول لاحقًا.',
    token_expired: () =>
      'انتهت صلاحية إذنك برفع الملفات. أعد تحميل الصفحة أو سجّل الدخول من جديد، ثم أعد المحاولة.',
    token_provider_failed: () =>
      'تعذّر على هذه الصفحة الحصول على إذن برفع الملفات. أعد المحاولة أو أعد تحميل الصفحة؛ وإذا استمرت المشكلة فأبلغ مالك الموقع.',
    token_exhausted: () =>
      'بلغت الحد المسموح لك هنا من الملفات أو حجم البيانات، لذلك لم يُرسل هذا الملف.',
    upload_token_required: () =>
      'لا يقبل هذا الموقع الملفات إلا ممن أذن لهم، ولم تحصل هذه الصفحة على هذا الإذن. سجّل الدخول، أو أبلغ صاحب الموقع.',
    infected: () => 'عثر فحص الفيروسات على برمجية خبيثة في هذا الملف، فرُفض ولم يُحفظ أي شيء.',
    metadata_unreadable: () =>
      'تعذّرت إزالة الموقع من هذه الصورة بشكل موثوق، لذا لم يُحفظ أي شيء. احفظ نسخة بلا بيانات الموقع ثم أعد المحاولة.',
    unscannable: () =>
      'تعذّر على فحص الفيروسات إكمال فحص هذا الملف (ربما لأنه أرشيف ينفك إلى حجم كبير جدًّا)، فرُفض ولم يُحفظ أي شيء.',
    import_refused_target: () =>
      'يشير هذا الرابط إلى عنوان لا يُسمح لخدمة الملفات بالجلب منه. استخدم رابطًا عامًّا.',
    import_http_error: () =>
      'لم يُرسل الموقع الذي يشير إليه الرابط الملف. تحقّق من الرابط وأعد المحاولة.',
    import_timeout: () =>
      'استغرق الموقع الذي يشير إليه الرابط وقتًا طويلًا في إرسال الملف. أعد المحاولة لاحقًا.',
    import_failed: () => 'تعذّر جلب الملف من الرابط. أعد المحاولة لاحقًا.',
    import_too_large: ({ limit }) =>
      `الملف الذي يشير إليه الرابط أكبر مما يقبله هذا الموقع.${limit ? ` الحد الأقصى ${limit}.` : ''}`,
    import_unsupported_type: () => 'هذا النوع من الملفات غير مقبول هنا.',
    unexpected: ({ code, message }) =>
      `حدث خطأ ما (${code}).${message ? ` ${message}` : ''} أعد المحاولة الآن أو لاحقًا.`,
  },
};

export default ar;
