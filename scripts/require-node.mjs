// Run before `npm run example`, `npm test` and `npm run bench` (their `pre` scripts), on
// whatever Node npm found: plain JavaScript, since an older Node cannot run the TypeScript
// sources. The `node` devDependency puts a Node 22 binary first on npm's PATH, but only when
// npm ran its install script; with install scripts turned off (`ignore-scripts`), npm used the
// machine's Node, and the first sign of it was "Unknown file extension .ts". This says why.
import { readFileSync } from 'node:fs';

const wanted = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node.replace(/^>=/, '');
const parse = (v) => v.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10));
const [have, need] = [parse(process.versions.node), parse(wanted)];
const older = have[0] !== need[0] ? have[0] < need[0] : have[1] !== need[1] ? have[1] < need[1] : have[2] < need[2];
if (older) {
  console.error(`This project's scripts need Node.js ${wanted} or later; npm ran Node.js v${process.versions.node} (${process.execPath}).
The \`node\` devDependency brings one, but only when npm runs install scripts: with ignore-scripts
set, run \`npm rebuild node --ignore-scripts=false\`, or use Node 22 LTS or later.`);
  process.exit(1);
}
