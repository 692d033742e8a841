// A streamed response (an export): written as its pieces come, waiting for the client to take each before the
// next is made (backpressure), so a slow reader holds the export back instead of the server buffering it. Each
// export holds a database connection while it runs, so a client cannot hold one for ever: an account streams at
// most `perAccount` exports at once per process (429 beyond), and a response whose client takes nothing for
// `stallMs` is cut off (its COPY cancelled and its connection given back by the reader's return).
import type { Response } from "express";
import type { Streamed } from "./types.js";

export async function writeStream(res: Response, status: number, s: Streamed, stallMs: number): Promise<void> {
  res.status(status);
  res.setHeader("Content-Type", `${s.contentType}; charset=utf-8`);
  res.setHeader("Content-Disposition", `attachment; filename="${s.filename}"`);
  res.setHeader("Cache-Control", "no-store");
  const chunks = s.chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { value, done } = await chunks.next();
      if (done) break;
      if (res.destroyed) break;
      if (!res.write(value) && !(await drained(res, stallMs))) {
        res.destroy(new Error(`export stalled: the client took nothing for ${stallMs} ms`));
        break;
      }
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    // Headers are gone: the client sees the response cut short (no final chunk), never a complete-looking file.
    if (res.headersSent) res.destroy(error instanceof Error ? error : new Error(String(error)));
    else throw error;
  } finally {
    // The reader stopped (or the client left, or stalled): the COPY or the cursor's transaction is let go.
    await chunks.return?.();
  }
}

/** Until the response takes more (drain: true) or is gone (close) or stalls past stallMs (both false). */
function drained(res: Response, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (taken: boolean) => () => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(taken);
    };
    const onDrain = done(true);
    const onClose = done(false);
    const timer = setTimeout(done(false), stallMs);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}
