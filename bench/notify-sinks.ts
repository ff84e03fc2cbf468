/**
 * The local delivery sinks of `npm run bench:notify`, in a process of their own (so the
 * notifier's CPU time is its own): an SMTP server and an HTTP webhook receiver on loopback.
 * Prints `{"smtp": URL, "hook": URL}` once listening; `GET <hook>/count` answers the counts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSmtpSink } from '../test/pulse/sinks.ts';

const smtp = await startSmtpSink({ parse: false });
let hooks = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/count') {
      res.end(JSON.stringify({ mails: (smtp as unknown as { count: number }).count, hooks }));
      return;
    }
    hooks++;
    res.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ smtp: smtp.url, hook: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` })}\n`);
process.on('SIGTERM', () => {
  receiver.closeAllConnections();
  receiver.close();
  void smtp.close().then(() => process.exit(0));
});
