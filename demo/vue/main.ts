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
    const edited = ref<{ width: number; height: number } | null>(null);
    const onImageEdit = (event: CustomEvent<{ crop: { width: number; height: number } }>) => {
      edited.value = event.detail.crop;
    };
    return {
      endpoint,
      apiKey,
      last,
      onSuccess,
      edited,
      onImageEdit,
      metadata: { source: 'vue-demo' },
    };
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
      <h2>Profile picture</h2>
      <p>
        With <code>image-editor</code>, a photo waits to be cropped (here to a square,
        <code>crop-aspect="1:1"</code>), turned or flipped before it is sent; Vue hears
        <code>@image-edit</code>.
      </p>
      <file-uploader id="avatar" :endpoint="endpoint" :api-key="apiKey" accept="image/*"
        image-editor crop-aspect="1:1" max-image-width="512" :metadata.prop="metadata"
        @image-edit="onImageEdit" @upload-success="onSuccess"></file-uploader>
      <p data-testid="edited" role="status">
        <template v-if="edited">Vue received the edit: a crop of {{ edited.width }} × {{ edited.height }} pixels</template>
      </p>
      <file-list for="uploader" :endpoint="endpoint" :api-key="apiKey" page-size="10"></file-list>
    </main>
  `,
});
// Vue's template compiler must leave these tags to the browser.
app.config.compilerOptions.isCustomElement = (tag) =>
  tag === 'file-uploader' || tag === 'file-list';
app.mount('#app');
