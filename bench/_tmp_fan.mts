import { runFanout, withGateway } from './fanout';
const cfg = JSON.parse(process.argv[2]);
await withGateway({}, async (g) => {
  let n = 0;
  for (const c of cfg) console.log(JSON.stringify(await runFanout(g, c, `b${n++}`)));
});
