// A session's browser and system as a person reads them (domain/userAgents.ts, through bowser).
import { describe, expect, it } from "vitest";
import { browserAndSystem } from "../../server/domain/userAgents.js";

describe("browserAndSystem", () => {
  it("names the browser, its major version and the system", () => {
    expect(
      browserAndSystem("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"),
    ).toBe("Chrome 131 on Windows 10");
    expect(browserAndSystem("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
      "Firefox 133 on macOS Sonoma",
    );
    expect(
      browserAndSystem(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari 18 on iOS");
  });

  it("gives a program's own string as it is, and nothing for none", () => {
    expect(browserAndSystem("node")).toBe("node");
    expect(browserAndSystem("curl/8.5.0")).toBe("curl/8.5.0");
    expect(browserAndSystem(null)).toBeNull();
  });
});
