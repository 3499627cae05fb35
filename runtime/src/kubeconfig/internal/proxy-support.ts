// Which proxies the runtime can use: the kubeconfig loader refuses a cluster's proxy-url it cannot,
// and the transport (proxy-env.ts) checks HTTPS_PROXY the same way. It lives here, below both, so the
// transport depends on the kubeconfig and never the other way round.

/**
 * Why `proxyUrl` cannot be used for `server` (to follow "sets "), or undefined when it can. `label`
 * names where the proxy came from (an environment variable: see transport/proxy-env.ts). Only
 * http:// proxies (HTTP CONNECT) in front of https:// servers.
 */
export function unsupportedProxy(proxyUrl: string, server: string, label = `proxy-url ${proxyUrl}`): string | undefined {
  let proxy: URL;
  try {
    proxy = new URL(proxyUrl);
  } catch {
    return `${label}, which is not a URL (write it as http://host:port)`;
  }
  if (proxy.protocol !== 'http:') return `${label}, a ${proxy.protocol.replace(/:$/, '')} proxy, where only http:// proxies (HTTP CONNECT) are supported`;
  if (!server.startsWith('https:')) return `${label} for the plain-HTTP server ${server}, where only https:// servers can be reached through a proxy`;
  return undefined;
}
