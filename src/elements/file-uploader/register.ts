import { defineElement } from '../shared/define.js';
import { FileUploaderElement } from './file-uploader.js';

defineElement('file-uploader', FileUploaderElement);

export { FileUploaderElement };
