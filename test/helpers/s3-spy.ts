import { S3Client } from '@aws-sdk/client-s3';

/** One command an S3 client sent, with the input it carried and what came back. */
export interface SeenCommand {
  name: string;
  input: Record<string, unknown>;
  /** `ContentLength` of the answer, where it has one (the bytes a GET returned). */
  contentLength: number | undefined;
}

/**
 * Records every command any S3 client of this process sends (the service's stores run in
 * the test's process), by wrapping `S3Client.prototype.send`; `restore` puts it back. A
 * spy on the real client talking to the real gateway, not a fake.
 */
export function spyOnS3Commands(): { seen: SeenCommand[]; restore: () => void } {
  const seen: SeenCommand[] = [];
  const original = S3Client.prototype.send;
  const patched = async function (this: S3Client, ...args: unknown[]): Promise<unknown> {
    const command = args[0] as { constructor: { name: string }; input: Record<string, unknown> };
    const output = (await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args)) as
      | { ContentLength?: number }
      | undefined;
    seen.push({
      name: command.constructor.name,
      input: command.input,
      contentLength: output?.ContentLength,
    });
    return output;
  };
  S3Client.prototype.send = patched as typeof S3Client.prototype.send;
  return {
    seen,
    restore: () => {
      S3Client.prototype.send = original;
    },
  };
}
