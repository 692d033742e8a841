import type { Config } from "../config.js";
import type { Db } from "../db/knex.js";
import { SimulatorProvider } from "./simulator.js";
import type { Provider } from "./types.js";

export function createProvider(config: Config, db: Db): Provider {
  switch (config.provider) {
    case "simulator":
      return new SimulatorProvider(db, config.simulatorDeliveryDelayMs, config.simulatorSubmitDelayMs);
    case "smpp":
      throw new Error("PROVIDER=smpp is not available yet in this build; use PROVIDER=simulator");
  }
}
