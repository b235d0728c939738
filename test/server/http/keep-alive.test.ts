// @deployments embedded scale
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startClosingProxy } from '../../helpers/closing-proxy.js';
import { startNginx } from '../../helpers/nginx.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** A GET on `agent`'s one kept-alive connection: its `Keep-Alive` header, and whether it reused one. */
function get(agent: Agent, url: string): Promise<{ keepAlive: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent }, (response) => {
      response.resume();
      response.once('end', () =>
        resolve({
          keepAlive: String(response.headers['keep-alive']),
          reused: request.reusedSocket,
        }),
      );
    });
    request.once('error', reject);
    request.end();
  });
}

/** The `Keep-Alive` header the API and the CDN of `t` answer with. */
async function keepAliveSaid(t: TestService): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const said: string[] = [];
    for (const url of [`${t.apiUrl}/healthz`, `${t.cdnUrl}/healthz`]) {
      said.push((await get(agent, url)).keepAlive);
    }
    return said;
  } finally {
    agent.destroy();
  }
}

describe('how long the service keeps an idle kept-alive connection', () => {
  describe('facing clients directly', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService();
    });
    after(async () => {
      await t.close();
    });

    it("says 5 s on the API and the CDN (Node's; each idle connection counts in the per-client cap)", async () => {
      assert.deepEqual(await keepAliveSaid(t), ['timeout=5', 'timeout=5']);
    });
  });

  describe('behind a proxy (one is trusted)', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ FILEHOST_TRUST_PROXY: '1' });
    });
    after(async () => {
      await t.close();
    });

    it("says 72 s, past nginx's and load balancers' 60 s, on the API and the CDN", async () => {
      assert.deepEqual(await keepAliveSaid(t), ['timeout=72', 'timeout=72']);
    });

    it('still answers on a connection left idle past 5 s', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        assert.equal((await get(agent, `${t.apiUrl}/healthz`)).reused, false);
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        assert.equal((await get(agent, `${t.apiUrl}/healthz`)).reused, true);
      } finally {
        agent.destroy();
      }
    });

    it('why: nginx answers 502 to a POST whose kept-alive upstream connection the instance closes as it arrives', async (context) => {
      // The documented nginx (docs/running-at-scale.md) resends no POST: an instance that
      // closed its idle connections before nginx does would fail a client's sign now and then.
      const proxy = await startClosingProxy(t.apiUrl);
      const nginx = await startNginx([
        { api: new URL(proxy.url).host, cdn: new URL(t.cdnUrl).host },
      ]);
      if ('skip' in nginx) {
        await proxy.close();
        context.skip(nginx.skip);
        return;
      }
      try {
        const sign = async () => {
          const answer = await fetch(`${nginx.apiUrl}/v1/uploads/sign`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${t.secretKey}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: 'a.bin', size: 10 }),
          });
          await answer.arrayBuffer();
          return answer;
        };
        assert.equal((await sign()).status, 201);
        proxy.end = 'reset';
        assert.equal((await sign()).status, 502);
        assert.equal(proxy.ended, 1);
      } finally {
        await nginx.stop();
        await proxy.close();
      }
    });
  });
});
