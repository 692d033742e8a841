// The dashboard's CSV reading for the contacts import (dashboard/src/csv.ts, on csv-parse): RFC 4180 quoting, line numbers
// that point into the file, optional header in any column order, unknown columns ignored and named, a mapping.
import { describe, expect, it } from "vitest";
import { contactsFromCsv, CsvError, customKeyOf, parseCsv } from "../../dashboard/src/csv.js";

describe("parseCsv", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks, and keeps each record's first line", () => {
    const text = 'a,b\r\n"x, y","say ""hi"""\n"multi\nline",z\n\n  \nlast,one';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", 'say "hi"'] },
      { line: 3, fields: ["multi\nline", "z"] },
      { line: 7, fields: ["last", "one"] },
    ]);
  });

  it("ignores a byte order mark and a final line break, keeps empty fields", () => {
    expect(parseCsv("\uFEFFa,,c\n")).toEqual([{ line: 1, fields: ["a", "", "c"] }]);
  });

  it("names the line where the file ends inside an unclosed quote", () => {
    expect(() => parseCsv('ok\n"never closed\nmore')).toThrow(new CsvError(3, "a quoted field is never closed"));
  });
});

const blank = { firstName: null, lastName: null, group: null, timeZone: null, tags: [], customFields: {} };

describe("contactsFromCsv", () => {
  it("reads phone,firstName[,group] without a header", () => {
    expect(contactsFromCsv("+14155550101,Ada,VIP\n+14155550102,,\n+14155550103")).toMatchObject({
      header: false,
      unknown: [],
      rows: [
        { ...blank, line: 1, phone: "+14155550101", firstName: "Ada", group: "VIP" },
        { ...blank, line: 2, phone: "+14155550102" },
        { ...blank, line: 3, phone: "+14155550103" },
      ],
    });
  });

  it("takes the columns from a header in any order and case", () => {
    expect(contactsFromCsv("Group,Phone,First Name\nVIP, +1 415 555 0101 ,Ada\n")).toMatchObject({
      header: true,
      columns: ["Group", "Phone", "First Name"],
      rows: [{ ...blank, line: 2, phone: "+1 415 555 0101", firstName: "Ada", group: "VIP" }],
    });
  });

  it("reads a timeZone column, by position or by its header", () => {
    expect(contactsFromCsv("+14155550101,Ada,VIP,America/Chicago").rows[0]).toMatchObject({ timeZone: "America/Chicago" });
    expect(contactsFromCsv("time_zone,phone\nEurope/Berlin,+4915112345678").rows).toEqual([
      { ...blank, line: 2, phone: "+4915112345678", timeZone: "Europe/Berlin" },
    ]);
  });

  it("reads last names, tags and custom.<key> columns by their headers", () => {
    const csv = contactsFromCsv('phone,Last Name,tags,custom.Plan\n+14155550101,Lovelace,"vip; nasa",gold\n+14155550102,,,');
    expect(csv.rows).toEqual([
      { ...blank, line: 2, phone: "+14155550101", lastName: "Lovelace", tags: ["vip", "nasa"], customFields: { plan: "gold" } },
      { ...blank, line: 3, phone: "+14155550102" },
    ]);
  });

  it("ignores a column it does not know, and names it; a mapping makes it a custom field or a field", () => {
    const text = "phone,email,Company name\n+14155550101,a@b.c,Acme";
    const csv = contactsFromCsv(text);
    expect(csv.unknown).toEqual(["email", "Company name"]);
    expect(csv.mapping).toEqual([{ to: "phone" }, { to: "ignore" }, { to: "ignore" }]);
    expect(csv.sample).toEqual(["+14155550101", "a@b.c", "Acme"]);
    expect(csv.rows).toEqual([{ ...blank, line: 2, phone: "+14155550101" }]);
    const mapped = contactsFromCsv(text, [{ to: "phone" }, { to: "custom", key: customKeyOf("email")! }, { to: "lastName" }]);
    expect(mapped.rows).toEqual([{ ...blank, line: 2, phone: "+14155550101", lastName: "Acme", customFields: { email: "a@b.c" } }]);
    expect([customKeyOf("Company name"), customKeyOf("custom.Loyalty-Plan"), customKeyOf("123"), customKeyOf("  ")]).toEqual([
      "company_name",
      "loyalty_plan",
      undefined,
      undefined,
    ]);
  });
});
