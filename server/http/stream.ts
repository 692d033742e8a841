// A streamed response (an export): written as its pieces come, waiting for the client to take each before the
// next is made (backpressure), so a slow reader holds the export back instead of the server buffering it.
import type { Response } from "express";
import type { Streamed } from "./types.js";

export async function writeStream(res: Response, status: number, s: Streamed): Promise<void> {
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
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    // Headers are gone: the client sees the response cut short (no final chunk), never a complete-looking file.
    if (res.headersSent) res.destroy(error instanceof Error ? error : new Error(String(error)));
    else throw error;
  } finally {
    // The reader stopped (or the client left): the cursor's transaction is let go.
    await chunks.return?.();
  }
}

/** Until the response takes more (drain) or is gone (close); both listeners are removed either way. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
