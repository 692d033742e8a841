// Counters on prom-client's process-wide registry, found before made: a module evaluated twice in one process
// (the test suite shares modules between its files, and a second import path evaluates a module again) must
// not register a metric twice, which prom-client refuses.
import { Counter, Histogram, register, type CounterConfiguration, type HistogramConfiguration } from "prom-client";

export function processCounter<L extends string = never>(configuration: CounterConfiguration<L>): Counter<L> {
  return (register.getSingleMetric(configuration.name) as Counter<L> | undefined) ?? new Counter(configuration);
}

export function processHistogram<L extends string = never>(configuration: HistogramConfiguration<L>): Histogram<L> {
  return (register.getSingleMetric(configuration.name) as Histogram<L> | undefined) ?? new Histogram(configuration);
}
