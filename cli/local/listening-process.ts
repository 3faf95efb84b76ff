import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The inodes of the TCP sockets listening on `port`, from the kernel's tables (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is `<ip>:<port>` in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9] !== undefined)
        inodes.add(fields[9]);
    }
  }
  return inodes;
}

/**
 * Whether process `pid` is the one listening on loopback `port`: true or false where `/proc` says (Linux), null
 * where it cannot tell. A server started on a port another one took meanwhile fails to bind, but a client asking
 * that port is answered by the other one until then: only the listening socket says whose server answered.
 */
export function listensOn(pid: number, port: number): boolean | null {
  let descriptors: string[];
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  for (const descriptor of descriptors) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${descriptor}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return true;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return false;
}
