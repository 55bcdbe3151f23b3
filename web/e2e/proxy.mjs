// A TCP proxy in front of Colloquy whose connections a test can cut, as a network drop would: the
// browser sees its stream end with a network error, mid-answer.
import net from "node:net";

export async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** Cuts every open connection at once. */
    dropAll() {
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(resolve);
    }),
  };
}
