/**
 * `omnimedia/proxy`: mount the service on your own server so that a page can use the whole
 * client (`new OmniMedia({ proxyURL })`) while the API key stays on the server. Imports nothing
 * from `node:*`: `handler` runs on Node, Deno, Bun and edge runtimes, `nodeHandler` on
 * `node:http`-style servers. See the guide [Browser apps](https://github.com/omnimedia/omnimedia/blob/main/docs/browser-apps.md).
 *
 * @module omnimedia/proxy
 */
export { createProxy, ProxyDenied, type OmniMediaProxy } from './create-proxy.ts';
export type { NodeProxyRequest, NodeProxyResponse } from './node-adapter.ts';
export type { ProxyEventsOptions, ProxyIdentity, ProxyOperation, ProxyOptions, ProxyPolicyRequest, ProxyRateLimit, ProxySubmission } from './options.ts';
export { MemoryRateLimits } from '../coordination/memory.ts';
export type { RateLimitDecision, RateLimitStore } from '../coordination/ports.ts';
