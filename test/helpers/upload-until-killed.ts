/**
 * A Node process that uploads a file by its path (`uploadPath`, remembering it in a resume
 * store) and is killed (SIGKILL, by itself) once `FILEHOST_KILL_AFTER_PARTS` part PUTs have
 * been answered: a crash mid-upload, for the resume tests. Reads FILEHOST_ENDPOINT,
 * FILEHOST_KEY, FILEHOST_PATH and XDG_CACHE_HOME (where the store is).
 */
import { FilehostClient } from '../../src/client/index.js';
import { uploadPath } from '../../src/client/node.js';

const killAfter = Number(process.env.FILEHOST_KILL_AFTER_PARTS);
let answered = 0;
const client = new FilehostClient({
  endpoint: String(process.env.FILEHOST_ENDPOINT),
  apiKey: String(process.env.FILEHOST_KEY),
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'PUT' && ++answered >= killAfter) process.kill(process.pid, 'SIGKILL');
    return response;
  },
});
await uploadPath(client, String(process.env.FILEHOST_PATH), { concurrency: 1 });
console.log('finished without being killed');
