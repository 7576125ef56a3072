/**
 * An in-memory OpenTelemetry metric reader: the SDK's MeterProvider with a reader the test
 * collects from, and the points it holds as plain `{ name, attributes, value }` rows.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { HistogramMetricData, SumMetricData } from '@opentelemetry/sdk-metrics';

class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Point {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  /** a counter's sum, or a histogram's count */
  readonly value: number;
  /** histograms: the sum of the values */
  readonly sum?: number;
}

export interface TestMetrics {
  readonly meterProvider: MeterProvider;
  collect(): Promise<Point[]>;
  /** the value of `name` at exactly `attributes` (0 when absent) */
  value(name: string, attributes?: Record<string, unknown>): Promise<number>;
  shutdown(): Promise<void>;
}

export function testMetrics(): TestMetrics {
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  async function collect(): Promise<Point[]> {
    const { resourceMetrics } = await reader.collect();
    const points: Point[] = [];
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        for (const point of (metric as SumMetricData | HistogramMetricData).dataPoints) {
          const value = point.value as number | { count: number; sum?: number };
          points.push(typeof value === 'number'
            ? { name: metric.descriptor.name, attributes: { ...point.attributes }, value }
            : { name: metric.descriptor.name, attributes: { ...point.attributes }, value: value.count, sum: value.sum ?? 0 });
        }
      }
    }
    return points;
  }
  return {
    meterProvider,
    collect,
    async value(name, attributes = {}) {
      const match = (await collect()).find((p) => p.name === name && JSON.stringify(sorted(p.attributes)) === JSON.stringify(sorted(attributes)));
      return match?.value ?? 0;
    },
    shutdown: () => meterProvider.shutdown(),
  };
}

function sorted(record: Record<string, unknown>): [string, unknown][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
