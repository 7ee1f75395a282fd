// Serves build/site at http://127.0.0.1:PORT. Usage: node build/serve.mjs [port]
import { startServer } from './server.js';

const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const { url } = await startServer(port);
console.log(`serving build/site at ${url}/`);
