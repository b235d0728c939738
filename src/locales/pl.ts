import type { PluralForm, Translation } from '../elements/shared/translation.js';

/** "plik", "pliki", "plików": Polish has a form for one, a few (2–4, 22–24…) and many. */
const files = (form: PluralForm) => (form === 'one' ? 'plik' : form === 'few' ? 'pliki' : 'plików');

/** Polish (polski). */
const pl: Translation = {
  $code: 'pl',
  $dir: 'ltr',
  uploader: {
    dropzone: 'Przeciągnij tutaj pliki lub',
    dropzoneFolders: 'Przeciągnij tutaj pliki lub foldery albo',
    browse: 'wybierz pliki',
    or: 'lub',
    browseFolder: 'wybierz folder',
    takePhoto: 'Zrób zdjęcie',
    dropHere: 'Upuść pliki, aby je przesłać',
    hintTypes: (types) => `Dozwolone: ${types}.`,
    hintMaxSize: (size) => `Do ${size} na plik.`,
    hintMaxFiles: (count, form) => `Najwyżej ${count} ${files(form)}.`,
    hintFilesLeft: (count, form) => `Możesz dodać jeszcze ${count} ${files(form)}.`,
    hintBytesLeft: (size) => `Pozostało łącznie ${size}.`,
    hintPaste: 'Możesz też wkleić pliki.',
    queued: 'Czeka na przesłanie',
    preparing: 'Przygotowywanie…',
    uploading: (percent) => `Przesyłanie… ${percent}`,
    timeLeft: (duration) => `jeszcze ${duration}`,
    finishing: 'Kończenie…',
    done: 'Przesłano',
    retrying: (seconds) => `Ponowna próba za ${seconds} s…`,
    paused: 'Wstrzymano',
    upload: 'Prześlij',
    retry: 'Ponów',
    cancel: 'Anuluj',
    remove: 'Usuń',
    cancelAll: 'Anuluj wszystko',
    pauseUpload: 'Wstrzymaj',
    resumeUpload: 'Wznów',
    pauseAllUploads: 'Wstrzymaj wszystko',
    resumeAllUploads: 'Wznów wszystko',
    pauseLabel: (name) => `Wstrzymaj przesyłanie pliku ${name}`,
    resumeLabel: (name) => `Wznów przesyłanie pliku ${name}`,
    retryLabel: (name) => `Ponów przesyłanie pliku ${name}`,
    cancelLabel: (name) => `Anuluj przesyłanie pliku ${name}`,
    removeLabel: (name) => `Usuń plik ${name}`,
    fileListLabel: 'Pliki',
    openFile: (name) => `Otwórz ${name} (w nowej karcie)`,
    total: (done, count, percent) => `Przesłano ${done} z ${count} · ${percent}`,
    announceAdded: (count, form) => `Dodano ${count} ${files(form)}.`,
    announceDone: (name) => `Przesłano plik ${name}.`,
    announceFailed: (name, reason) => `Nie przesłano pliku ${name}: ${reason}`,
    announceAllDone: (succeeded, failed) =>
      failed === '0'
        ? `Zakończono przesyłanie. Przesłane: ${succeeded}.`
        : `Zakończono przesyłanie. Przesłane: ${succeeded}, nieudane: ${failed}.`,
    interrupted: 'Przerwano. Wybierz ten plik ponownie, aby kontynuować od miejsca przerwania.',
    formUploading: 'Poczekaj, aż przesyłanie się zakończy.',
    formRequired: 'Prześlij co najmniej jeden plik.',
    linkLabel: 'Link do pliku',
    linkImport: 'Importuj',
    linkInvalid: 'Wpisz link zaczynający się od https:// lub http://.',
    importing: (percent) => `Importowanie… ${percent}`,
    editorWaiting: 'Gotowe do edycji lub wysłania',
    editorEdit: 'Edytuj',
    editorEditLabel: (name) => `Edytuj ${name}`,
    editorUpload: 'Wyślij',
    editorUploadLabel: (name) => `Wyślij ${name} bez zmian`,
    editorTitle: (name) => `Edycja: ${name}`,
    editorHelp:
      'Strzałki przesuwają obszar kadrowania, Shift ze strzałkami zmienia jego rozmiar. Escape anuluje.',
    editorCropArea: 'Obszar kadrowania',
    editorAspect: 'Proporcje',
    editorFree: 'Dowolne',
    editorRotateLeft: 'Obróć w lewo',
    editorRotateRight: 'Obróć w prawo',
    editorFlipX: 'Odbij w poziomie',
    editorFlipY: 'Odbij w pionie',
    editorZoomIn: 'Powiększ',
    editorZoomOut: 'Pomniejsz',
    editorReset: 'Resetuj',
    editorSave: 'Zapisz',
    editorAnnounce: (degrees, width, height) =>
      `Obrócono o ${degrees} stopni. Obszar kadrowania ${width} × ${height} pikseli.`,
    formHeld: 'Najpierw edytuj lub wyślij oczekujące obrazy.',
    editorUnreadable: (name) => `Nie udało się otworzyć ${name} do edycji. Wyślij plik bez zmian.`,
  },
  list: {
    listLabel: 'Przesłane pliki',
    loading: 'Wczytywanie plików…',
    empty: 'Nie ma jeszcze plików.',
    emptyHint: 'Przesłane pliki pojawią się tutaj, od najnowszych.',
    loadMore: 'Wczytaj więcej',
    loadingMore: 'Wczytywanie kolejnych…',
    end: (count, form) => (form === 'one' ? 'To jedyny plik.' : `To wszystkie pliki (${count}).`),
    retry: 'Spróbuj ponownie',
    copyLink: 'Kopiuj link',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Skopiowano',
    copyFailed: 'Nie udało się skopiować',
    pending: 'Przesyłanie…',
    openFile: (name) => `${name} (otwiera się w nowej karcie)`,
    uploadedAt: (when) => `Przesłano ${when}`,
    announceLoaded: (count, form) => `Wyświetlono ${count} ${files(form)}.`,
    announceAdded: (name) => `Dodano ${name} do listy.`,
    announceCopied: (name) => `Skopiowano link do pliku ${name}.`,
    errorTitle: 'Nie udało się wczytać plików.',
  },
  errors: {
    origin_not_allowed: ({ origin }) =>
      `Ta strona (${origin}) nie może używać tego klucza. Lista dozwolonych originów klucza musi zawierać ${origin}.`,
    invalid_key: () => 'Nie rozpoznano klucza. Sprawdź ustawienie api-key.',
    missing_auth: () => 'Nie ustawiono klucza. Podaj klucz publiczny (api-key).',
    secret_key: () =>
      'Podano klucz tajny, który nigdy nie może znaleźć się na stronie internetowej. Użyj klucza publicznego (pk_live_…).',
    no_endpoint: () => 'Nie ustawiono adresu. Podaj adres API (endpoint).',
    too_large: ({ limit }) => `Ten plik jest za duży. Limit wynosi ${limit}.`,
    rate_limited: ({ seconds, form }) =>
      `Zbyt wiele żądań w krótkim czasie. Spróbuj ponownie za ${seconds} ${form === 'one' ? 'sekundę' : form === 'few' ? 'sekundy' : 'sekund'}.`,
    empty_body: () => 'Ten plik jest pusty, więc nie ma czego przesłać.',
    network_error: () =>
      'Utracono połączenie. Sprawdź je i spróbuj ponownie; przesyłanie wznowi się od miejsca przerwania.',
    script_missing: () =>
      'Brakuje pliku potrzebnego temu narzędziu do przesyłania. Strona wymaga poprawki: powiadom właściciela witryny.',
    type_not_allowed: ({ accept }) =>
      `Ten typ pliku nie jest tu akceptowany. Dozwolone: ${accept}.`,
    too_many_files: ({ max, form }) => `Możesz dodać najwyżej ${max} ${files(form)}.`,
    duplicate_file: () => 'Ten plik jest już na liście.',
    upload_expired: () => 'To przesyłanie wygasło przed zakończeniem. Ponów, aby zacząć od nowa.',
    refused: ({ code }) =>
      `Usługa plików odrzuciła to żądanie (${code}). Strona wymaga poprawki: powiadom właściciela witryny.`,
    not_found: () => 'Pod tym adresem nic nie znaleziono. Sprawdź ustawienie endpoint.',
    internal_error: () => 'W usłudze plików wystąpił problem. Spróbuj ponownie za chwilę.',
    unavailable: ({ seconds, form }) =>
      `Usługa plików jest teraz zajęta. Spróbuj ponownie za ${seconds} ${form === 'one' ? 'sekundę' : form === 'few' ? 'sekundy' : 'sekund'}.`,
    quota_exceeded: () =>
      'Brak miejsca na ten plik: magazyn witryny jest pełny albo ma zbyt wiele niedokończonych przesyłań. Spróbuj później lub powiadom właściciela witryny.',
    damaged: () =>
      'Część pliku dotarła uszkodzona lub niepełna. Ponów; jeśli plik się w międzyczasie zmienił, wybierz go jeszcze raz.',
    link_expired: () => 'Link tego przesyłania nie jest już ważny. Ponów, aby dostać nowy.',
    upload_conflict: () =>
      'To przesyłanie zostało już zakończone, może w innej karcie. Wybierz plik jeszcze raz, aby przesłać go od nowa.',
    insufficient_storage: () =>
      'Usługa plików nie ma teraz miejsca i niczego nie zapisała. Spróbuj później.',
    token_expired: () =>
      'Twoje uprawnienie do wysyłania plików wygasło. Odśwież stronę lub zaloguj się ponownie, a potem spróbuj jeszcze raz.',
    token_provider_failed: () =>
      'Ta strona nie mogła uzyskać pozwolenia na wysyłanie plików. Spróbuj ponownie lub odśwież stronę; jeśli to się powtarza, powiadom właściciela witryny.',
    token_exhausted: () =>
      'Osiągnięto limit plików lub danych, które możesz tu wysłać, więc ten plik nie został wysłany.',
    upload_token_required: () =>
      'Ta witryna przyjmuje pliki tylko od osób, którym na to pozwoliła, a ta strona nie otrzymała takiego pozwolenia. Zaloguj się lub powiadom właściciela witryny.',
    infected: () =>
      'Skanowanie antywirusowe wykryło w tym pliku złośliwe oprogramowanie: plik odrzucono i niczego nie zachowano.',
    metadata_unreadable: () =>
      'Nie udało się bezpiecznie usunąć lokalizacji z tego zdjęcia, więc niczego nie zachowano. Zapisz kopię bez lokalizacji i spróbuj ponownie.',
    unscannable: () =>
      'Skanowanie antywirusowe nie mogło w pełni sprawdzić tego pliku (np. archiwum, które po rozpakowaniu jest zbyt duże): plik odrzucono i niczego nie zachowano.',
    import_refused_target: () =>
      'Ten link prowadzi pod adres, z którego usługa plików nie może pobierać. Użyj publicznego linku.',
    import_http_error: () =>
      'Strona pod linkiem nie wydała pliku. Sprawdź link i spróbuj ponownie.',
    import_timeout: () => 'Strona pod linkiem zbyt długo wysyłała plik. Spróbuj ponownie później.',
    import_failed: () => 'Nie udało się pobrać pliku z linku. Spróbuj ponownie później.',
    import_too_large: ({ limit }) =>
      `Plik pod linkiem jest za duży dla tej strony.${limit ? ` Limit wynosi ${limit}.` : ''}`,
    import_unsupported_type: () => 'Ten typ pliku nie jest tu przyjmowany.',
    unexpected: ({ code, message }) =>
      `Coś poszło nie tak (${code}).${message ? ` ${message}` : ''} Ponów teraz lub spróbuj później.`,
  },
};

export default pl;
