// The container's HEALTHCHECK: exit 0 when this container's API answers /readyz 200, else 1 with the reason.
// A plain Node script because the slim runtime image has no curl.
const port = process.env.PORT ?? "3000";
try {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  if (res.ok) process.exit(0);
  process.stderr.write(`not ready: ${res.status} ${await res.text()}\n`);
} catch (error) {
  process.stderr.write(`not ready: ${(error as Error).message}\n`);
}
process.exit(1);
