import { isIP } from 'node:net';

/** The subnet names Express's `trust proxy` knows (proxy-addr). */
const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Express's `trust proxy` setting takes it: a hop count (`1`: the client is the
 * address the nearest proxy reports), or a comma list of the proxies' addresses, CIDR subnets and
 * the names loopback, linklocal and uniquelocal. `false` when unset, empty or `false`: the
 * client address is the socket's peer. `true` (trust every X-Forwarded-For entry, so any client
 * can choose its own address) is refused: give the hop count or the proxies' addresses.
 */
export function parseTrustProxy(value: string | undefined): number | string[] | false {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 100) throw new Error('TRUST_PROXY must be a hop count of at most 100');
    return hops === 0 ? false : hops;
  }
  if (text === 'true')
    throw new Error(
      'TRUST_PROXY=true would let any client choose its address through X-Forwarded-For: give the number of proxies (e.g. 1) or their addresses',
    );
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isTrustEntry(entry))
      throw new Error(
        `TRUST_PROXY: "${entry}" is not a hop count, an IP address, a CIDR subnet or one of loopback, linklocal, uniquelocal`,
      );
  }
  return entries;
}

function isTrustEntry(entry: string): boolean {
  if (PRESETS.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
