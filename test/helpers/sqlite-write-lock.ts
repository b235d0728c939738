import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Another process (an operator's `sqlite3` shell, a backup) holds the embedded database's
 * write lock: a real second process with its own SQLite connection, not a mock.
 */
export async function holdWriteLock(path: string): Promise<{ release(): Promise<void> }> {
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(process.argv[1], { timeout: 5000 });
    db.exec('BEGIN IMMEDIATE');
    console.log('held');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script, path], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout?.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return {
    async release() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.write('release\n');
      await exited;
    },
  };
}
