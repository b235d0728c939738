import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { API_ERROR_STATUS } from '../../src/api/errors.js';
import { ApiError } from '../../src/client/api-error.js';
import { fillCamera } from '../../src/elements/file-uploader/camera.js';
import { fillLink } from '../../src/elements/file-uploader/link-source.js';
import { fillEditor } from '../../src/elements/image-editor/held-images.js';
import { en } from '../../src/elements/shared/en.js';
import { fillServiceWords } from '../../src/elements/shared/en-service.js';
import { describeApiError } from '../../src/elements/shared/failure-text.js';
import { formatBytes, formatCount, pluralForm } from '../../src/elements/shared/format.js';
import type { FailureContext, Translation } from '../../src/elements/shared/translation.js';
import type { FileUploaderStrings } from '../../src/elements/shared/uploader-strings.js';
import { fillEnglish } from '../../src/elements/upload-engine/en-engine.js';
import { fillMemory } from '../../src/elements/upload-engine/en-memory.js';
import { fillRefusals } from '../../src/elements/upload-engine/en-refusals.js';
import { describeFailure } from '../../src/elements/upload-engine/file-retries.js';
import { SHIPPED_LOCALES } from '../../src/locales/index.js';

/** Every shipped language, as `filehost/locales/<tag>` gives it. */
async function shipped(): Promise<Translation[]> {
  return Promise.all(
    SHIPPED_LOCALES.split(' ').map(
      async (tag) =>
        ((await import(`../../src/locales/${tag}.js`)) as { default: Translation }).default,
    ),
  );
}

/** A count as an element words it: formatted for the language, with its plural category. */
function counted(count: number, lang: string): [string, Intl.LDMLPluralRule] {
  return [formatCount(count, lang), pluralForm(count, lang)];
}

const context = (known: Partial<FailureContext>): FailureContext => ({
  origin: 'https://shop.example',
  limit: '',
  seconds: '',
  accept: '',
  max: '',
  form: 'other',
  code: 'x',
  message: '',
  ...known,
});

describe('shipped languages', () => {
  it('are the files in src/locales, each under its own tag', async () => {
    const files = (await readdir('src/locales')).filter((file) => file !== 'index.ts');
    assert.deepEqual(
      files.map((file) => file.replace(/\.ts$/, '')).sort(),
      SHIPPED_LOCALES.split(' ').sort(),
    );
    for (const translation of await shipped()) {
      assert.ok(SHIPPED_LOCALES.split(' ').includes(translation.$code), translation.$code);
      assert.equal(
        translation.$dir,
        ['ar', 'he'].includes(translation.$code) ? 'rtl' : 'ltr',
        translation.$code,
      );
    }
  });

  it('word every text English has (English whole once the engine and its refusals filled it in), none empty', async () => {
    fillEnglish();
    // The word of an upload cut off by a reload, with the memory of uploads.
    fillMemory();
    // The English words of the service's refusals, which the engine fetches with the first.
    fillRefusals();
    // And those of the service's other answers, which both elements fetch with the first.
    fillServiceWords();
    // The Link source's words, which come with it (`sources="link"`).
    fillLink();
    // The camera button's, with the camera check (`capture`); the image editor's, with its
    // loader (`image-editor`).
    fillCamera();
    fillEditor();
    const keys = (t: Translation) =>
      (['uploader', 'list', 'errors'] as const).map((part) => Object.keys(t[part]).sort());
    for (const translation of await shipped()) {
      assert.deepEqual(keys(translation), keys(en), translation.$code);
      for (const part of ['uploader', 'list', 'errors'] as const) {
        for (const [key, value] of Object.entries(translation[part])) {
          const worded =
            typeof value === 'string'
              ? value
              : (value as (...args: unknown[]) => string)(
                  context({ max: '3', seconds: '5', limit: '1 MB', accept: '.png' }),
                  'other',
                  '1',
                );
          assert.ok(worded.trim().length > 0, `${translation.$code} ${part}.${key}`);
          assert.ok(
            !worded.includes('undefined'),
            `${translation.$code} ${part}.${key}: ${worded}`,
          );
        }
      }
    }
  });

  it('count in Arabic with six forms, in Polish and Ukrainian with their few and many', async () => {
    const byTag = new Map((await shipped()).map((t) => [t.$code, t]));
    const added = (tag: string, count: number) =>
      byTag.get(tag)?.uploader.announceAdded(...counted(count, tag));
    assert.deepEqual(
      [0, 1, 2, 3, 11, 100].map((count) => pluralForm(count, 'ar')),
      ['zero', 'one', 'two', 'few', 'many', 'other'],
    );
    assert.deepEqual(
      [1, 2, 3, 11, 100].map((count) => added('ar', count)),
      // Digits as Intl writes them for `ar` here (Latin or Arabic-Indic, by ICU version).
      [
        'تمت إضافة ملف واحد.',
        'تمت إضافة ملفان.',
        `تمت إضافة ${formatCount(3, 'ar')} ملفات.`,
        `تمت إضافة ${formatCount(11, 'ar')} ملفًا.`,
        `تمت إضافة ${formatCount(100, 'ar')} ملف.`,
      ],
    );
    assert.deepEqual(
      [1, 2, 5, 22, 25].map((count) => added('pl', count)),
      [
        'Dodano 1 plik.',
        'Dodano 2 pliki.',
        'Dodano 5 plików.',
        'Dodano 22 pliki.',
        'Dodano 25 plików.',
      ],
    );
    assert.deepEqual(
      [1, 3, 5, 21].map((count) => added('uk', count)),
      ['Додано 1 файл.', 'Додано 3 файли.', 'Додано 5 файлів.', 'Додано 21 файл.'],
    );
    assert.deepEqual(
      [1, 2, 7].map((count) => added('he', count)),
      ['נוסף קובץ אחד.', 'נוספו שני קבצים.', 'נוספו 7 קבצים.'],
    );
    assert.equal(added('de', 1), '1 Datei hinzugefügt.');
    assert.equal(added('de', 1200), '1.200 Dateien hinzugefügt.');
    assert.equal(added('ja', 3), '3件のファイルを追加しました。');
  });

  it('get sizes and numbers written by Intl for the language', async () => {
    const byTag = new Map((await shipped()).map((t) => [t.$code, t]));
    assert.equal(
      byTag.get('de')?.uploader.hintMaxSize(formatBytes(1_500_000, 'de')),
      'Je Datei bis 1,5 MB.',
    );
    assert.equal(
      byTag.get('fr')?.errors.too_large(context({ limit: formatBytes(2_500_000_000, 'fr') })),
      // French puts a narrow no-break space between number and unit.
      'Ce fichier est trop volumineux. La limite est de 2,5\u202fGo.',
    );
    assert.equal(
      byTag
        .get('ar')
        ?.errors.rate_limited(
          context({ seconds: formatCount(30, 'ar'), form: pluralForm(30, 'ar') }),
        ),
      `طلبات كثيرة في وقت قصير. حاول مرة أخرى بعد ${formatCount(30, 'ar')} ثانية.`,
    );
  });

  it('word every error code the service answers, and a lost connection, each in words of its own kind, in every language', async () => {
    fillEnglish();
    // The English words of the service's refusals, which the engine fetches with the first.
    fillRefusals();
    // And those of the service's other answers, which both elements fetch with the first.
    fillServiceWords();
    const codes = [...Object.keys(API_ERROR_STATUS), 'network_error'];
    for (const translation of [en, ...(await shipped())]) {
      const lang = translation.$code;
      const options = { locale: lang, origin: 'https://shop.example' };
      const worded = (code: string, details: Record<string, unknown> = {}) => {
        const status = API_ERROR_STATUS[code as keyof typeof API_ERROR_STATUS] ?? 0;
        const error = new ApiError(status, code as ApiError['code'], 'the service said so', {
          retryAfter: 7,
          details,
        });
        return describeApiError(error, translation.errors, options).message;
      };
      // What a code of a newer service gets: the code and the service's own sentence.
      const fallback = worded('a_code_from_a_newer_service');
      assert.ok(fallback.includes('a_code_from_a_newer_service'), `${lang}: ${fallback}`);
      for (const code of codes) {
        const message = worded(code);
        // `unexpected` would show the service's sentence: this code has words of its own.
        assert.ok(!message.includes('the service said so'), `${lang} ${code}: ${message}`);
        assert.ok(!message.includes('undefined'), `${lang} ${code}: ${message}`);
      }
      // The delay the service asked for, as the language writes numbers.
      assert.ok(worded('unavailable').includes(formatCount(7, lang)), `${lang} unavailable`);
      // A type the service refused (from the bytes, say) names what the project accepts.
      const refusedType = worded('unsupported_type', {
        type: 'image/gif',
        allowed: ['image/png', 'application/pdf'],
      });
      assert.ok(refusedType.includes('image/png, application/pdf'), `${lang}: ${refusedType}`);
    }
  });

  it("name a missing upload as expired once a file has one, and a wrong endpoint at sign (the uploader's words)", () => {
    fillEnglish();
    // The English words of the service's refusals, which the engine fetches with the first.
    fillRefusals();
    // And those of the service's other answers, which both elements fetch with the first.
    fillServiceWords();
    const strings = { errors: en.errors } as FileUploaderStrings;
    const missing = new ApiError(404, 'not_found', 'Not found.');
    const context = { locale: 'en', origin: 'https://shop.example' };
    assert.match(describeFailure(missing, 'complete', strings, context).message, /expired/);
    assert.match(describeFailure(missing, 'upload', strings, context).message, /expired/);
    assert.match(describeFailure(missing, 'sign', strings, context).message, /endpoint/);
  });
});
