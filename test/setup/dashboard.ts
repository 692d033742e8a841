// Builds the dashboard before the tests when its sources changed since the last build (a content hash, so this
// is a no-op most of the time): the browser tests and `npm start` serve dashboard/dist.
import { buildDashboard } from "../../scripts/build-dashboard.js";

export default async function setup() {
  const { built, ms } = await buildDashboard({ ifStale: true, quiet: true });
  if (built) process.stderr.write(`built the dashboard in ${ms} ms\n`);
}
