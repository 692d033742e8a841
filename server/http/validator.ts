// The request validator (express-openapi-validator), created after the server listens instead of at start-up.
import { createRequire } from "node:module";
import express, { type Express, type RequestHandler, type Router } from "express";
import type { middleware as openApiValidator } from "express-openapi-validator";

/** Per app, what creates its request validator now (createHttpServer calls it once the server listens). */
const validatorWarmUps = new WeakMap<Express, () => void>();

/**
 * express-openapi-validator compiles the OpenAPI meta-schema and preprocesses the document as soon as it is
 * created: about half a second of CPU, more than everything else a start does. So it is loaded and created
 * once the server listens (or by the first request, whichever comes first); a request that comes before it is
 * ready waits for it, so every request is validated all the same (docs/OPERATIONS.md has the figures).
 */
export function deferredValidator(
  app: Express,
  options: Parameters<typeof openApiValidator>[0],
): { middleware: RequestHandler; ready: () => Promise<Router> } {
  let validator: Promise<Router> | undefined;
  // A CommonJS module: its exports come as `default` from Node and from the bundle, by name from tsx.
  const ready = () =>
    (validator ??= import("express-openapi-validator").then((module) => {
      if (options.validateApiSpec === false) buildSpecValidatorOnlyWhenUsed();
      compileRouteMatchersOnce();
      return express.Router().use((module.default ?? module).middleware(options));
    }));
  validatorWarmUps.set(app, () => void ready().catch(() => undefined));
  return { ready, middleware: (req, res, next) => void ready().then((router) => router(req, res, next), next) };
}

/** Creates the app's request validator now (createHttpServer calls it once the server listens). */
export function warmUpValidator(app: Express): void {
  validatorWarmUps.get(app)?.();
}

interface SpecValidatorOptions {
  validateApiSpec: boolean;
}
type SpecValidatorClass = new (opts: SpecValidatorOptions) => object;

/**
 * express-openapi-validator 5.6 builds its OpenAPI-schema validator (compiling the OpenAPI 3.1 meta-schema with
 * ajv: about 0.4 s of CPU) even with `validateApiSpec: false`, and then never uses it. Replaced by one that
 * builds it only when it is asked to check the document. If the library moves it, this fails loudly.
 */
function buildSpecValidatorOnlyWhenUsed(): void {
  const internal = createRequire(import.meta.url)("express-openapi-validator/dist/framework/openapi.schema.validator.js") as {
    OpenAPISchemaValidator: SpecValidatorClass & { builtOnlyWhenUsed?: true };
  };
  const original = internal.OpenAPISchemaValidator;
  if (typeof original !== "function") throw new Error("express-openapi-validator changed: review buildSpecValidatorOnlyWhenUsed");
  if (original.builtOnlyWhenUsed) return;
  function OpenAPISchemaValidator(opts: SpecValidatorOptions): object {
    if (opts.validateApiSpec) return new original(opts);
    return {
      validate: () => {
        throw new Error("the OpenAPI document is not checked (validateApiSpec: false)");
      },
    };
  }
  internal.OpenAPISchemaValidator = Object.assign(OpenAPISchemaValidator as unknown as SpecValidatorClass, {
    builtOnlyWhenUsed: true as const,
  });
}

type PathToRegexp = ((path: unknown, options?: object) => unknown) & { compiledOnce?: true };

/**
 * express-openapi-validator 5.6 finds a request's operation by compiling the path-to-regexp matcher of every
 * route of the document, one after the other until one matches, on every request: for our 130-odd routes
 * that was the API's largest cost of its own (profile of `POST /messages` under bench:smpp, bench/NOTES.md).
 * A matcher depends only on the route and the two routing options, so the validator's `pathToRegexp` is
 * replaced by one that compiles each once (upstream: cdimascio/express-openapi-validator pull request 1217,
 * the same cache, not released). The scan and what it matches are the library's, unchanged.
 */
export function compileRouteMatchersOnce(): PathToRegexp {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
  const module = fromValidator("path-to-regexp") as { pathToRegexp: PathToRegexp };
  const compile = module.pathToRegexp;
  if (typeof compile !== "function") throw new Error("path-to-regexp changed: review compileRouteMatchersOnce");
  if (compile.compiledOnce) return compile;
  const compiled = new Map<string, unknown>();
  const once: PathToRegexp = (path, options) => {
    if (typeof path !== "string") return compile(path, options);
    const key = `${JSON.stringify(options ?? {})} ${path}`;
    if (!compiled.has(key)) compiled.set(key, compile(path, options));
    return compiled.get(key);
  };
  module.pathToRegexp = Object.assign(once, { compiledOnce: true as const });
  return module.pathToRegexp;
}
