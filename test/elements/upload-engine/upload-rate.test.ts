import { expect } from '@open-wc/testing';
import { en } from '../../../src/elements/shared/en.js';
import { fillEnglish } from '../../../src/elements/upload-engine/en-engine.js';
import { UploadRate } from '../../../src/elements/upload-engine/upload-rate.js';
import de from '../../../src/locales/de.js';

fillEnglish();

/** A rate fed `bytesPerSecond` for `seconds`, a report every `everyMs`, from time 0. */
function steady(bytesPerSecond: number, seconds: number, everyMs = 100): UploadRate {
  const rate = new UploadRate();
  for (let t = 0; t <= seconds * 1000; t += everyMs) rate.sample((bytesPerSecond * t) / 1000, t);
  return rate;
}

describe('UploadRate: a large file’s speed and time left', () => {
  it('says nothing before 1.5 s of an upload, then the speed it was fed', () => {
    expect(steady(4_000_000, 1).bytesPerSecond(1000)).to.equal(null);
    for (const speed of [50_000, 4_000_000, 120_000_000]) {
      const measured = steady(speed, 3).bytesPerSecond(3000) ?? 0;
      expect(Math.abs(measured - speed) / speed, String(speed)).to.be.below(0.001);
    }
  });

  it('follows a link that slows down within seconds, and one that stalls', () => {
    const rate = steady(10_000_000, 10);
    // Then 1 MB/s for 6 s: the last 5 s are all that count.
    for (let t = 10_100; t <= 16_000; t += 100) {
      rate.sample(100_000_000 + (1_000_000 * (t - 10_000)) / 1000, t);
    }
    expect(rate.bytesPerSecond(16_000)).to.be.within(1_000_000, 1_200_000);
    // No report for 5 s: what was sent over the window, spread over the time since.
    expect(rate.bytesPerSecond(21_000)).to.be.below(700_000);
  });

  it('words speed and time left for the language: seconds by fives, then minutes, then hours', () => {
    const rate = steady(2_000_000, 3);
    const at = (bytesLeft: number, texts = en.uploader, lang = 'en') =>
      rate.pace(bytesLeft, { ...texts, errors: en.errors, $dir: 'ltr' }, lang, 3000);
    // A number and its unit are held together (no-break spaces), so a narrow row never
    // puts them on two lines.
    expect(at(21_000_000)).to.match(/^2(\.0)?\u00a0MB\/s · \d+\u00a0seconds left$/);
    expect(at(250_000_000)).to.match(/^2(\.0)?\u00a0MB\/s · \d+\u00a0minutes left$/);
    expect(at(20_000_000_000)).to.match(/^2(\.0)?\u00a0MB\/s · [\d.]+\u00a0hours left$/);
    expect(at(250_000_000, de.uploader, 'de')).to.match(
      /^2(,0)?\u00a0MB\/s · noch \d+\u00a0Minuten$/,
    );
  });
});
