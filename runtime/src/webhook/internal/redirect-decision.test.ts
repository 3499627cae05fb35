import { describe, expect, it } from 'vitest';
import { decideRedirect, isLoopbackServer, localDevelopmentEnv, localDevelopmentSetting } from './redirect-decision.js';

describe('whether local development may redirect the cluster\'s webhooks', () => {
  it('counts only loopback addresses and localhost as this machine; names are not resolved', () => {
    for (const s of ['https://127.0.0.1:6443', 'https://127.1.2.3', 'https://localhost:6443', 'https://[::1]:6443', 'https://[::ffff:127.0.0.1]:1']) expect(isLoopbackServer(s), s).toBe(true);
    for (const s of ['https://192.0.2.2:6443', 'https://10.0.0.1', 'https://[::2]:1', 'https://kind-control-plane:6443', 'https://localhost.example.com', 'not a url', undefined]) expect(isLoopbackServer(s), s).toBe(false);
  });

  it('redirects when asked, refuses a remote cluster unless asked, and never inside a cluster unless asked', () => {
    const outside = {};
    const inside = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };
    expect(decideRedirect(undefined, 'https://127.0.0.1:6443', outside)).toEqual({ redirect: true, why: 'the API server is on this machine' });
    expect(decideRedirect(undefined, 'https://192.0.2.2:6443', outside)).toMatchObject({ redirect: false, refusal: expect.stringContaining(`set ${localDevelopmentEnv}=true`) });
    expect(decideRedirect(true, 'https://192.0.2.2:6443', outside)).toEqual({ redirect: true, why: 'local development was asked for' });
    expect(decideRedirect({ url: 'https://host.docker.internal:9443' }, 'https://192.0.2.2:6443', outside)).toMatchObject({ redirect: true });
    expect(decideRedirect(false, 'https://127.0.0.1:6443', outside)).toEqual({ redirect: false });
    expect(decideRedirect(undefined, 'https://127.0.0.1:6443', inside)).toEqual({ redirect: false });
  });

  it('reads the option first, then OPGEN_WEBHOOK_LOCAL_DEVELOPMENT (true, false or a URL), refusing anything else in one line', () => {
    expect(localDevelopmentSetting(false, { [localDevelopmentEnv]: 'true' })).toBe(false);
    expect(localDevelopmentSetting(undefined, {})).toBeUndefined();
    expect(localDevelopmentSetting(undefined, { [localDevelopmentEnv]: 'true' })).toBe(true);
    expect(localDevelopmentSetting(undefined, { [localDevelopmentEnv]: 'false' })).toBe(false);
    expect(localDevelopmentSetting(undefined, { [localDevelopmentEnv]: 'https://172.17.0.1:9443/' })).toEqual({ url: 'https://172.17.0.1:9443' });
    expect(() => localDevelopmentSetting(undefined, { [localDevelopmentEnv]: '1' })).toThrow(`${localDevelopmentEnv}=1: expected true, false or the https:// URL the API server reaches this process at`);
  });
});
