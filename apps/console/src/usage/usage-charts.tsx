// The usage charts, drawn with recharts (SVG: readable by axe and by the tests, and styled by CSS). This
// module is the only one importing recharts, and it is loaded lazily (usage-panel.tsx): the chart
// library stays out of the console's initial JavaScript.
import type { ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { UsageBucket } from './usage-api';
import { bucketLabel, type UsagePoint } from './usage-series';

type Series = { key: keyof UsagePoint; name: string; colour: string };
type Row = UsagePoint & { label: string };

const RUNS: Series[] = [
  { key: 'runs', name: 'Runs', colour: '#1f4e79' },
  { key: 'errors', name: 'Errors', colour: '#a4161a' },
];
const TOKENS: Series[] = [
  { key: 'input_tokens', name: 'Input tokens', colour: '#2b6a3f' },
  { key: 'output_tokens', name: 'Output tokens', colour: '#7a4b00' },
];

function Chart({ title, children }: { title: string; children: ReactNode }) {
  return (
    <figure className="usage-chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={180}>
        {children}
      </ResponsiveContainer>
    </figure>
  );
}

// Children of a recharts chart, called as a function: recharts finds its parts among the chart's children.
function axes(counts: boolean) {
  return [
    <CartesianGrid key="grid" stroke="#e1e6eb" vertical={false} />,
    <XAxis key="x" dataKey="label" tick={{ fontSize: 11 }} minTickGap={24} />,
    <YAxis key="y" tick={{ fontSize: 11 }} width={56} allowDecimals={!counts} />,
    <Tooltip key="tooltip" />,
    <Legend key="legend" />,
  ];
}

function BarsChart(props: { title: string; data: Row[]; series: Series[]; stacked?: boolean }) {
  return (
    <Chart title={props.title}>
      <BarChart data={props.data} title={props.title} accessibilityLayer>
        {axes(true)}
        {props.series.map((series) => (
          <Bar
            key={series.key}
            dataKey={series.key}
            name={series.name}
            fill={series.colour}
            {...(props.stacked ? { stackId: 'stack' } : {})}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </Chart>
  );
}

export default function UsageCharts({ points, bucket }: { points: UsagePoint[]; bucket: UsageBucket }) {
  const data = points.map((point) => ({ ...point, label: bucketLabel(point.start, bucket) }));
  return (
    <div className="usage-charts">
      <BarsChart title="Runs and errors" data={data} series={RUNS} />
      <BarsChart title="Tokens" data={data} series={TOKENS} stacked />
      <Chart title="Cost (USD)">
        <LineChart data={data} title="Cost (USD)" accessibilityLayer>
          {axes(false)}
          <Line dataKey="cost_usd" name="Cost" stroke="#5b2a86" connectNulls dot={false} isAnimationActive={false} />
        </LineChart>
      </Chart>
    </div>
  );
}
