/**
 * `filehost/react`: types that make `<file-uploader>` and `<file-list>` typed in React 19
 * JSX (properties, attributes and `on<event>` handlers). Import it once, for types:
 * `import type {} from 'filehost/react';`
 */
import type {} from 'react';
import type { FileListEventMap } from './elements/file-list/file-list.js';
import type { FileUploaderEventMap } from './elements/file-uploader/file-uploader.js';
import type { FileListElement, FileUploaderElement } from './elements.js';

/** React 19 listens to a custom element's events through `on<event name>` props. */
type EventProps<Events> = {
  [K in keyof Events as `on${K & string}`]?: (event: Events[K]) => void;
};

type ElementProps<Element, Events, Attributes> = Partial<
  Omit<Element, keyof HTMLElement | 'files' | 'value' | 'form' | 'validity'>
> &
  EventProps<Events> &
  Attributes & {
    id?: string;
    class?: string;
    className?: string;
    style?: Record<string, string | number> | string;
    hidden?: boolean;
    lang?: string;
    children?: unknown;
    ref?: unknown;
    key?: string | number;
  };

export type FileUploaderProps = ElementProps<
  FileUploaderElement,
  FileUploaderEventMap,
  {
    'api-key'?: string;
    'upload-token'?: string;
    'max-file-size'?: number | string;
    'max-files'?: number | string;
    'no-auto-upload'?: boolean;
    'form-value'?: 'url' | 'id';
    'image-editor'?: boolean;
    /** The image editor's crop shapes, e.g. `1:1` or `free 1:1 4:3 16:9` (an attribute only). */
    'crop-aspect'?: string;
  }
>;

export type FileListProps = ElementProps<
  FileListElement,
  FileListEventMap,
  { 'api-key'?: string; 'page-size'?: number | string; for?: string }
>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'file-uploader': FileUploaderProps;
      'file-list': FileListProps;
    }
  }
}
