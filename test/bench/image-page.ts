/** The page of `bench:images`: `<file-uploader>`'s image shrinking, on `window`. */
import { shrinkImage } from '../../src/elements/shared/image-shrink.js';

Object.assign(window, { shrinkImage });
