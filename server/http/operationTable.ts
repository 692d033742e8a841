// The API's one routing table. Every request below the infrastructure endpoints is resolved here, once, to
// exactly one operation of the document, or answered 404 / 405: the key gate (access.ts), the bulk charge
// (auth.ts), the audit recorder and the handler dispatch all read `req.operation`, so what is judged is what
// runs. Paths match case-sensitively and exactly as the document spells them (no trailing slash, no other
// case): Express and the validator match case-insensitively, and a gate that matched differently from the
// router once let any account key reach the operator API by writing `/api/v1/ACCOUNTS`.
import type { RequestHandler } from "express";
import type { OperationAccess } from "./access.js";
import { HttpError } from "./problem.js";

declare module "express-serve-static-core" {
  interface Request {
    /** The operation this request runs, resolved by the operation table before anything else of the API. */
    operation?: ResolvedOperation;
  }
}

export interface ResolvedOperation extends OperationAccess {
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

interface Entry extends OperationAccess {
  pattern: RegExp;
  names: string[];
}

export interface OperationTable {
  /** The operation a method and a path (without the query) run; undefined when none does. */
  resolve(method: string, path: string): ResolvedOperation | undefined;
  /** The methods some operation takes on this path (empty when the path is no operation's). */
  methodsOf(path: string): string[];
}

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** The table of the document's operations: literal paths before templated ones (/numbers/holder first). */
export function operationTable(operations: OperationAccess[]): OperationTable {
  const entries: Entry[] = operations
    .map((op) => {
      const names: string[] = [];
      const source = op.path
        .split(/(\{\w+\})/)
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          if (!name) return escapeRegExp(part);
          names.push(name);
          return "([^/]+)";
        })
        .join("");
      return { ...op, method: op.method.toUpperCase(), pattern: new RegExp(`^${source}$`), names };
    })
    .sort((x, y) => Number(x.names.length > 0) - Number(y.names.length > 0));

  const matching = (path: string) => entries.filter((e) => e.pattern.test(path));
  return {
    resolve(method, path) {
      const wanted = method === "HEAD" ? "GET" : method;
      for (const entry of entries) {
        if (entry.method !== wanted) continue;
        const match = entry.pattern.exec(path);
        if (!match) continue;
        const params: Record<string, string> = {};
        entry.names.forEach((name, i) => (params[name] = decodeParam(name, match[i + 1]!)));
        const { pattern: _p, names: _n, ...access } = entry;
        return { ...access, params };
      }
      return undefined;
    },
    methodsOf: (path) => [...new Set(matching(path).map((e) => e.method))].sort(),
  };
}

function decodeParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError("validation_failed", `The request is invalid: /path/${name} is not a valid percent-encoded value.`, {
      errors: [{ path: `/path/${name}`, message: "is not a valid percent-encoded value" }],
    });
  }
}

/**
 * Resolves every request that reaches it to its operation, or answers: 405 with `Allow` when the path is an
 * operation's under another method, 404 otherwise. Mounted after the infrastructure endpoints, so nothing
 * unresolved reaches authentication, the validator or a handler.
 */
export function resolveOperation(table: OperationTable): RequestHandler {
  return (req, res, next) => {
    try {
      const operation = table.resolve(req.method, req.path);
      if (operation) {
        req.operation = operation;
        return next();
      }
      const allowed = table.methodsOf(req.path);
      if (allowed.length === 0) return next(new HttpError("not_found", "There is no such path in this API."));
      res.setHeader("Allow", allowed.join(", "));
      next(new HttpError("method_not_allowed", `The method is not allowed on this path; it takes ${allowed.join(", ")}.`));
    } catch (error) {
      next(error);
    }
  };
}
