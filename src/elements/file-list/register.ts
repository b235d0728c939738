import { defineElement } from '../shared/define.js';
import { FileListElement } from './file-list.js';

defineElement('file-list', FileListElement);

export { FileListElement };
