// loadConfig: the defaults, how values are read, and the messages that stop a process with a bad value.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";

describe("loadConfig", () => {
  it("gives the documented defaults with an empty environment", () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: "0.0.0.0",
      dashboardKeySignIn: undefined,
      smtpUrl: undefined,
      smtpFrom: "SMS Platform <no-reply@localhost>",
      searchScanRows: 10_000,
      httpHeadersTimeoutMs: 10_000,
      httpRequestTimeoutMs: 30_000,
      exportsPerAccount: 2,
      exportStallMs: 30_000,
      databaseUrl: undefined,
      embeddedPlacementDir: undefined,
      dataDir: ".data",
      dbPoolMax: 25,
      nodeEnv: "development",
      role: "all",
      logLevel: "info",
      metricsToken: undefined,
      validateResponses: false,
      workerConcurrency: 100,
      workerPrefetch: 0,
      workerReceiptConcurrency: 200,
      jobLeaseMs: 15_000,
      sendOutcomeResolveMs: 600_000,
      sendOutcomeUnresolved: "fail",
      jobRetentionMs: 24 * 3600_000,
      messageRetentionDays: 400,
      deliveryLogRetentionDays: 30,
      messageBodyRetentionDays: 0,
      rateLimitPerSecond: 50,
      rateLimitBurst: 100,
      rateLimitBulkPerSecond: 1000,
      rateLimitBulkBurst: 20000,
      unauthenticatedPerSecond: 5,
      unauthenticatedBurst: 20,
      defaultSenderId: "SMSPlatform",
      allowInternationalNetworks: false,
      webhookAllowPrivate: false,
      webhookTimeoutMs: 5000,
      maxWebhooksPerAccount: 10,
      webhookRetryBaseMs: 5000,
      webhookMaxInFlight: 50,
      webhookSlowAfterFailures: 3,
      webhookDisableAfterFailures: 100,
      webhookDisableAfterMs: 120 * 3600_000,
      provider: undefined,
      allowSimulatorInProduction: false,
      blockedPrefixes: [],
      publicUrl: undefined,
      smppDefaultCountry: undefined,
      smppServerMaxOpenParts: 1000,
      trustProxy: false,
      simulatorDeliveryDelayMs: 500,
      simulatorSubmitDelayMs: 0,
      smppUrl: undefined,
      smppSystemType: "",
      smppMaxInFlight: 10,
      smppMaxPerSecond: 50,
      providerMaxSegmentsPerSecond: null,
      throughputPacerMs: 100,
      smppResponseTimeoutMs: 10000,
      smppServerPort: null,
      smppServerHost: "0.0.0.0",
      smppServerHoldHours: 72,
      smppServerTlsPort: null,
      smppServerTlsCert: "",
      smppServerTlsKey: "",
      smppEnquireLinkMs: 30000,
      smppThrottlePauseMs: 1000,
      smppThrottleMaxWaitMs: 60000,
      autoReplyMaxPerHour: 100,
      connectorRefreshMs: 1000,
      inboundReassemblyTimeoutMs: 60000,
    });
  });

  it("reads values: integers, words, flags set only by 1, hours as milliseconds, SMPP limits at least 1", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "",
      DATABASE_URL: "",
      SMPP_URL: "smpp://a:b@smsc:2775",
      ROLE: "worker",
      PROVIDER: "smpp",
      WEBHOOK_ALLOW_PRIVATE: "1",
      VALIDATE_RESPONSES: "true",
      JOB_RETENTION_HOURS: "2",
      WORKER_PREFETCH: "",
      SMPP_MAX_IN_FLIGHT: "0",
      SMPP_MAX_PER_SECOND: "0",
      SMPP_THROTTLE_PAUSE_MS: "0",
      SMPP_THROTTLE_MAX_WAIT_MS: "0",
      PROVIDER_MAX_SEGMENTS_PER_SECOND: "40",
      THROUGHPUT_PACER_MS: "1",
    });
    expect(config).toMatchObject({
      port: 8080,
      host: "",
      databaseUrl: undefined,
      smppUrl: "smpp://a:b@smsc:2775",
      role: "worker",
      provider: "smpp",
      webhookAllowPrivate: true,
      validateResponses: false,
      jobRetentionMs: 2 * 3600_000,
      workerPrefetch: 0,
      workerReceiptConcurrency: 200,
      smppMaxInFlight: 1,
      smppMaxPerSecond: 1,
      smppThrottlePauseMs: 0,
      smppThrottleMaxWaitMs: 1,
      providerMaxSegmentsPerSecond: 40,
      throughputPacerMs: 10,
    });
  });

  it("refuses a bad value with a message naming the variable", () => {
    expect(() => loadConfig({ PORT: "-1" })).toThrow('PORT must be a non-negative integer, got "-1"');
    expect(() => loadConfig({ JOB_LEASE_MS: "1.5" })).toThrow('JOB_LEASE_MS must be a non-negative integer, got "1.5"');
    expect(() => loadConfig({ ROLE: "both" })).toThrow("ROLE must be one of api, worker, smpp, all");
    expect(() => loadConfig({ ROLE: "" })).toThrow("ROLE must be one of api, worker, smpp, all");
    expect(() => loadConfig({ PROVIDER: "twilio" })).toThrow("PROVIDER must be one of simulator, smpp");
    expect(() => loadConfig({ PROVIDER_MAX_SEGMENTS_PER_SECOND: "0" })).toThrow(
      'PROVIDER_MAX_SEGMENTS_PER_SECOND must be a positive integer, got "0"',
    );
  });
});
