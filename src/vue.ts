/**
 * `filehost/vue`: types that make `<file-uploader>` and `<file-list>` typed in Vue 3
 * templates (with Volar), properties and `@event` handlers. Import it once, for types:
 * `import type {} from 'filehost/vue';`. Tell Vue's compiler the tags are custom elements:
 * `compilerOptions.isCustomElement = (tag) => tag === 'file-uploader' || tag === 'file-list'`.
 */
import type { DefineComponent } from 'vue';
import type { FileListEventMap } from './elements/file-list/file-list.js';
import type { FileUploaderEventMap } from './elements/file-uploader/file-uploader.js';
import type { FileListElement, FileUploaderElement } from './elements.js';

/** `upload-success` → `UploadSuccess`: Vue turns `@upload-success` into an `onUploadSuccess` prop. */
type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${Pascal<Tail>}`
  : Capitalize<S>;

type Handlers<Events> = {
  [K in keyof Events as `on${Pascal<K & string>}`]?: (event: Events[K]) => void;
};

type Props<Element, Events> = Partial<
  Omit<Element, keyof HTMLElement | 'files' | 'value' | 'form' | 'validity'>
> &
  Handlers<Events>;

declare module 'vue' {
  interface GlobalComponents {
    'file-uploader': DefineComponent<
      Props<FileUploaderElement, FileUploaderEventMap> & {
        /**
         * `crop-aspect="1:1"` in a template: the image editor's crop shapes (an attribute
         * only, which Vue sets as one).
         */
        cropAspect?: string;
      }
    >;
    'file-list': DefineComponent<Props<FileListElement, FileListEventMap>>;
  }
}
