// Live segment count of a text, with the server's own rules (server/domain/segments.ts, dependency-free).
import { segmentInfo } from "../../common/segments.js";

export function segmentSummary(text: string): string {
  if (!text) return "0 characters";
  const { encoding, segments } = segmentInfo(text);
  const chars = [...text].length;
  return `${chars} character${chars === 1 ? "" : "s"} · ${segments} segment${segments === 1 ? "" : "s"} · ${encoding}`;
}

export function SegmentCount({ text, id }: { text: string; id?: string }) {
  return (
    <small class="hint" id={id}>
      {segmentSummary(text)}
    </small>
  );
}
