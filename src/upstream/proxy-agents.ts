import { HttpProxyAgent, HttpsProxyAgent } from "hpagent";

type Agents = { http: HttpProxyAgent; https: HttpsProxyAgent };
const cache = new Map<string, Agents>();

/** Keep-alive agents that tunnel through `proxyUrl`, one pair per proxy. */
export function proxyAgents(proxyUrl: string): Agents {
  let agents = cache.get(proxyUrl);
  if (!agents) {
    const options = { keepAlive: true, proxy: proxyUrl };
    agents = { http: new HttpProxyAgent(options), https: new HttpsProxyAgent(options) };
    cache.set(proxyUrl, agents);
  }
  return agents;
}
