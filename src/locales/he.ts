import type { PluralForm, Translation } from '../elements/shared/translation.js';

/** "file" counted: one (קובץ אחד), two (שני קבצים), and the rest (N קבצים). */
const files = (count: string, form: PluralForm) =>
  form === 'one' ? 'קובץ אחד' : form === 'two' ? 'שני קבצים' : `${count} קבצים`;

/** Hebrew (עברית), written right to left. */
const he: Translation = {
  $code: 'he',
  $dir: 'rtl',
  uploader: {
    dropzone: 'גררו קבצים לכאן, או',
    dropzoneFolders: 'גררו קבצים או תיקיות לכאן, או',
    browse: 'בחרו קבצים',
    or: 'או',
    browseFolder: 'בחרו תיקייה',
    takePhoto: 'צילום תמונה',
    dropHere: 'שחררו את הקבצים כדי להעלות אותם',
    hintTypes: (types) => `סוגים מותרים: ${types}.`,
    hintMaxSize: (size) => `עד ${size} לכל קובץ.`,
    hintMaxFiles: (count, form) => `לכל היותר ${files(count, form)}.`,
    hintFilesLeft: (count, form) => `אפשר להעלות עוד ${files(count, form)}.`,
    hintBytesLeft: (size) => `נותרו ${size} בסך הכול.`,
    hintPaste: 'אפשר גם להדביק קבצים.',
    queued: 'ממתין להעלאה',
    preparing: 'בהכנה…',
    uploading: (percent) => `מעלה… ${percent}`,
    timeLeft: (duration, form) => `${form === 'one' ? 'נותרה' : 'נותרו'} ${duration}`,
    finishing: 'מסיים…',
    done: 'הועלה',
    retrying: (seconds) => `ניסיון חוזר בעוד ${seconds} שנ׳…`,
    paused: 'מושהה',
    upload: 'העלאה',
    retry: 'ניסיון חוזר',
    cancel: 'ביטול',
    remove: 'הסרה',
    cancelAll: 'ביטול הכול',
    pauseUpload: 'השהיה',
    resumeUpload: 'המשך',
    pauseAllUploads: 'השהיית הכול',
    resumeAllUploads: 'המשך הכול',
    pauseLabel: (name) => `השהיית ההעלאה של ${name}`,
    resumeLabel: (name) => `המשך ההעלאה של ${name}`,
    retryLabel: (name) => `ניסיון חוזר להעלות את ${name}`,
    cancelLabel: (name) => `ביטול ההעלאה של ${name}`,
    removeLabel: (name) => `הסרת ${name}`,
    fileListLabel: 'קבצים',
    openFile: (name) => `פתיחת ${name} (בכרטיסייה חדשה)`,
    total: (done, count, percent) => `הועלו ${done} מתוך ${count} · ${percent}`,
    announceAdded: (count, form) =>
      form === 'one' ? 'נוסף קובץ אחד.' : `נוספו ${files(count, form)}.`,
    announceDone: (name) => `${name} הועלה.`,
    announceFailed: (name, reason) => `${name} לא הועלה: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `כל ההעלאות הסתיימו. הועלו: ${succeeded}.`
        : `ההעלאות הסתיימו. הועלו: ${succeeded}, נכשלו: ${failed}.`,
    interrupted: 'ההעלאה נקטעה. בחרו את הקובץ הזה שוב כדי להמשיך מהמקום שבו נעצרה.',
    formUploading: 'נא להמתין עד שההעלאות יסתיימו.',
    formRequired: 'נא להעלות לפחות קובץ אחד.',
    linkLabel: 'קישור לקובץ',
    linkImport: 'ייבוא',
    linkInvalid: 'יש להזין קישור שמתחיל ב־https://‎ או ב־http://‎.',
    importing: (percent) => `מייבא… ${percent}`,
    editorWaiting: 'מוכנה לעריכה או להעלאה',
    editorEdit: 'עריכה',
    editorEditLabel: (name) => `עריכת ${name}`,
    editorUpload: 'העלאה',
    editorUploadLabel: (name) => `העלאת ${name} כפי שהיא`,
    editorTitle: (name) => `עריכת ${name}`,
    editorHelp: 'מקשי החיצים מזיזים את אזור החיתוך; Shift עם החיצים משנה את גודלו. Escape מבטל.',
    editorCropArea: 'אזור החיתוך',
    editorAspect: 'יחס גובה־רוחב',
    editorFree: 'חופשי',
    editorRotateLeft: 'סיבוב שמאלה',
    editorRotateRight: 'סיבוב ימינה',
    editorFlipX: 'היפוך אופקי',
    editorFlipY: 'היפוך אנכי',
    editorZoomIn: 'הגדלה',
    editorZoomOut: 'הקטנה',
    editorReset: 'איפוס',
    editorSave: 'שמירה',
    editorAnnounce: (degrees, width, height) =>
      `סובבה ב־${degrees} מעלות. אזור החיתוך ${width} × ${height} פיקסלים.`,
    formHeld: 'יש לערוך או להעלות קודם את התמונות הממתינות.',
    editorUnreadable: (name) => `לא ניתן היה לפתוח את ${name} לעריכה. אפשר להעלות אותה כפי שהיא.`,
  },
  list: {
    listLabel: 'קבצים שהועלו',
    loading: 'טוען קבצים…',
    empty: 'אין עדיין קבצים.',
    emptyHint: 'קבצים שתעלו יופיעו כאן, החדשים ראשונים.',
    loadMore: 'טעינת עוד',
    loadingMore: 'טוען עוד…',
    end: (count, form) => (form === 'one' ? 'זה הקובץ היחיד.' : `אלה כל ${count} הקבצים.`),
    retry: 'ניסיון נוסף',
    copyLink: 'העתקת קישור',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'הועתק',
    copyFailed: 'ההעתקה נכשלה',
    pending: 'מעלה…',
    openFile: (name) => `${name} (נפתח בכרטיסייה חדשה)`,
    uploadedAt: (when) => `הועלה ${when}`,
    announceLoaded: (count, form) => `מוצגים ${files(count, form)}.`,
    announceAdded: (name) => `${name} נוסף לרשימה.`,
    announceCopied: (name) => `הקישור אל ${name} הועתק.`,
    errorTitle: 'לא ניתן לטעון את הקבצים.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `הדף הזה (${origin}) לא רשאי להשתמש במפתח הזה. רשימת המקורות המותרים של המפתח חייבת לכלול את ${origin}.`,
    invalid_key: () => 'המפתח לא זוהה. בדקו את ההגדרה api-key.',
    missing_auth: () => 'לא הוגדר מפתח. הגדירו מפתח ציבורי (api-key).',
    secret_key: () =>
      'הוגדר מפתח סודי, ומפתח סודי אסור שיופיע בדף אינטרנט. השתמשו במפתח הציבורי (pk_live_…).',
    no_endpoint: () => 'לא הוגדרה כתובת. הגדירו את כתובת ה-API (endpoint).',
    too_large: ({ limit }) => `הקובץ גדול מדי. המגבלה היא ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `יותר מדי בקשות בזמן קצר. נסו שוב בעוד ${form === 'one' ? 'שנייה אחת' : `${seconds} שניות`}.`,
    empty_body: () => 'הקובץ ריק, כך שאין מה להעלות.',
    network_error: () => 'החיבור נותק. בדקו אותו ונסו שוב; ההעלאות ימשיכו מהמקום שבו נעצרו.',
    script_missing: () =>
      'חסר קובץ שרכיב ההעלאה הזה צריך. צריך לתקן את הדף: נא ליידע את בעלי האתר.',
    type_not_allowed: ({ accept }) => `סוג הקובץ הזה לא מתקבל כאן. סוגים מותרים: ${accept}.`,
    too_many_files: ({ max, form }) => `אפשר להוסיף לכל היותר ${files(max, form)}.`,
    duplicate_file: () => 'הקובץ הזה כבר ברשימה.',
    upload_expired: () => 'תוקף ההעלאה פג לפני שהסתיימה. נסו שוב כדי להתחיל אותה מחדש.',
    refused: ({ code }) =>
      `שירות הקבצים דחה את הבקשה הזו (${code}). צריך לתקן את הדף: נא ליידע את בעלי האתר.`,
    not_found: () => 'לא נמצא דבר בכתובת הזו. בדקו את ההגדרה endpoint.',
    internal_error: () => 'בשירות הקבצים אירעה תקלה. נסו שוב בעוד רגע.',
    unavailable: ({ seconds, form }) =>
      `שירות הקבצים עמוס כרגע. נסו שוב בעוד ${form === 'one' ? 'שנייה אחת' : `${seconds} שניות`}.`,
    quota_exceeded: () =>
      'אין מקום לקובץ הזה: האחסון של האתר מלא או שיש בו יותר מדי העלאות שלא הסתיימו. נסו שוב מאוחר יותר או ליידעו את בעלי האתר.',
    damaged: () => 'חלק מהקובץ הגיע פגום או חסר. נסו שוב; אם הקובץ השתנה בינתיים, בחרו אותו מחדש.',
    link_expired: () => 'הקישור של ההעלאה הזו כבר לא תקף. נסו שוב כדי לקבל קישור חדש.',
    upload_conflict: () =>
      'ההעלאה הזו כבר הסתיימה, אולי בכרטיסייה אחרת. בחרו את הקובץ שוב כדי להעלות אותו מחדש.',
    insufficient_storage: () =>
      'לשירות הקבצים אין מקום כרגע, ושום דבר לא נשמר. נסו שוב מאוחר יותר.',
    token_expired: () => 'ההרשאה שלך להעלות קבצים פגה. טען מחדש את הדף או התחבר שוב, ואז נסה שוב.',
    token_provider_failed: () =>
      'הדף הזה לא הצליח לקבל הרשאה להעלות קבצים. נסו שוב או טענו מחדש את הדף; אם זה חוזר, פנו לבעלי האתר.',
    token_exhausted: () =>
      'הגעת למגבלת הקבצים או כמות הנתונים שמותר לך להעלות כאן, ולכן הקובץ הזה לא נשלח.',
    upload_token_required: () =>
      'האתר הזה מקבל העלאות רק מאנשים שהוא התיר להם, והדף הזה לא קיבל את ההיתר. התחבר, או הודע לבעלי האתר.',
    infected: () => 'סריקת וירוסים מצאה תוכנה זדונית בקובץ הזה, ולכן הוא נדחה ושום דבר לא נשמר.',
    metadata_unreadable: () =>
      'לא ניתן היה להסיר בבטחה את המיקום מהתמונה הזו, ולכן שום דבר לא נשמר. יש לשמור עותק ללא מיקום ולנסות שוב.',
    unscannable: () =>
      'סריקת הווירוסים לא הצליחה לבדוק את הקובץ הזה עד הסוף (אולי ארכיון שנפרס לנפח גדול מדי), ולכן הוא נדחה ושום דבר לא נשמר.',
    import_refused_target: () =>
      'הקישור מפנה לכתובת ששירות הקבצים אינו רשאי להוריד ממנה. יש להשתמש בקישור ציבורי.',
    import_http_error: () => 'האתר שבקישור לא מסר את הקובץ. יש לבדוק את הקישור ולנסות שוב.',
    import_timeout: () => 'האתר שבקישור התעכב יותר מדי בשליחת הקובץ. יש לנסות שוב מאוחר יותר.',
    import_failed: () => 'לא ניתן היה להביא את הקובץ מהקישור. יש לנסות שוב מאוחר יותר.',
    import_too_large: ({ limit }) =>
      `הקובץ שבקישור גדול מדי עבור אתר זה.${limit ? ` המגבלה היא ${limit}.` : ''}`,
    import_unsupported_type: () => 'סוג קובץ זה אינו מתקבל כאן.',
    unexpected: ({ code, message }) =>
      `משהו השתבש (${code}).${message ? ` ${message}` : ''} נסו שוב עכשיו או מאוחר יותר.`,
  },
};

export default he;
