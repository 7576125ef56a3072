/**
 * A TCP proxy in front of a Redis node that can lose one reply: what a failover, a proxy or
 * NAT reset, or a restart with persistence does to a command Redis already ran.
 */
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface ReplyLosingProxy {
  readonly url: string;
  readonly port: number;
  /** the next command a client sends reaches Redis (which runs it); its connection is reset before the reply gets back */
  loseNextReply(): void;
  /** how many replies were lost */
  lost(): number;
  close(): Promise<void>;
}

export async function replyLosingProxy(target: string): Promise<ReplyLosingProxy> {
  const { hostname, port } = new URL(target);
  let armed = false;
  let lost = 0;
  const open = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    let dropping = false;
    client.on('data', (data) => {
      if (armed) {
        armed = false;
        dropping = true;
      }
      upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (!dropping) {
        client.write(data);
        return;
      }
      lost += 1;
      client.destroy();
      upstream.destroy();
    });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port: listening } = proxy.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${listening}`,
    port: listening,
    loseNextReply() {
      armed = true;
    },
    lost: () => lost,
    close: () => new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      // a client that keeps its connection open would hold close() until it ends
      for (const socket of open) socket.destroy();
    }),
  };
}
