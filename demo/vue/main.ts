import { createApp, ref } from 'vue';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import type {} from '../../src/vue.js';

const endpoint = import.meta.env.VITE_FILEHOST_API_URL as string;
const apiKey = import.meta.env.VITE_FILEHOST_PUBLISHABLE_KEY as string;

const app = createApp({
  setup() {
    const last = ref<FileRecord | null>(null);
    const onSuccess = (event: CustomEvent<{ record: FileRecord }>) => {
      last.value = event.detail.record;
    };
    return { endpoint, apiKey, last, onSuccess, metadata: { source: 'vue-demo' } };
  },
  template: `
    <main>
      <h1>filehost in Vue</h1>
      <p>
        The same two elements, used from a Vue 3 template: a property (<code>:metadata.prop</code>),
        attributes and an event handler (<code>@upload-success</code>) that puts the uploaded file
        in a ref. <a href="/">Back to the plain page</a>.
      </p>
      <file-uploader id="uploader" :endpoint="endpoint" :api-key="apiKey" multiple
        :metadata.prop="metadata" @upload-success="onSuccess"></file-uploader>
      <p data-testid="last" role="status">
        <template v-if="last">Vue received: <a :href="last.url">{{ last.name }}</a> ({{ last.size }} bytes)</template>
        <template v-else>Nothing uploaded from this page yet.</template>
      </p>
      <file-list for="uploader" :endpoint="endpoint" :api-key="apiKey" page-size="10"></file-list>
    </main>
  `,
});
// Vue's template compiler must leave these tags to the browser.
app.config.compilerOptions.isCustomElement = (tag) =>
  tag === 'file-uploader' || tag === 'file-list';
app.mount('#app');
