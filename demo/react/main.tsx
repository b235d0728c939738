import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import type {} from '../../src/react.js';

const endpoint = import.meta.env.VITE_FILEHOST_API_URL as string;
const apiKey = import.meta.env.VITE_FILEHOST_PUBLISHABLE_KEY as string;
const metadata = { source: 'react-demo' };

/** React 19 sets properties, attributes and `on<event>` listeners on custom elements. */
function App() {
  const [last, setLast] = useState<FileRecord | null>(null);
  return (
    <main>
      <h1>filehost in React</h1>
      <p>
        The same two elements, used from React 19 JSX: a property (<code>metadata</code>),
        attributes (<code>api-key</code>) and an event handler (<code>onupload-success</code>) that
        puts the uploaded file in React state. <a href="/">Back to the plain page</a>.
      </p>
      <file-uploader
        id="uploader"
        endpoint={endpoint}
        api-key={apiKey}
        multiple
        metadata={metadata}
        onupload-success={(event) => setLast(event.detail.record)}
      />
      <p data-testid="last" role="status">
        {last ? (
          <>
            React received: <a href={last.url ?? undefined}>{last.name}</a> ({last.size} bytes)
          </>
        ) : (
          'Nothing uploaded from this page yet.'
        )}
      </p>
      <file-list for="uploader" endpoint={endpoint} api-key={apiKey} page-size={10} />
    </main>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
