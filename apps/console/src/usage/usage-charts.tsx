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

const COLOURS = { runs: '#1f4e79', errors: '#a4161a', input: '#2b6a3f', output: '#7a4b00', cost: '#5b2a86' };

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

export default function UsageCharts({ points, bucket }: { points: UsagePoint[]; bucket: UsageBucket }) {
  const data = points.map((point) => ({ ...point, label: bucketLabel(point.start, bucket) }));
  const axes = (
    <>
      <CartesianGrid stroke="#e1e6eb" vertical={false} />
      <XAxis dataKey="label" tick={{ fontSize: 11 }} minTickGap={24} />
      <YAxis tick={{ fontSize: 11 }} width={56} allowDecimals={false} />
      <Tooltip />
      <Legend />
    </>
  );
  return (
    <div className="usage-charts">
      <Chart title="Runs and errors">
        <BarChart data={data} title="Runs and errors" accessibilityLayer>
          {axes}
          <Bar dataKey="runs" name="Runs" fill={COLOURS.runs} isAnimationActive={false} />
          <Bar dataKey="errors" name="Errors" fill={COLOURS.errors} isAnimationActive={false} />
        </BarChart>
      </Chart>
      <Chart title="Tokens">
        <BarChart data={data} title="Tokens" accessibilityLayer>
          {axes}
          <Bar
            dataKey="input_tokens"
            name="Input tokens"
            stackId="tokens"
            fill={COLOURS.input}
            isAnimationActive={false}
          />
          <Bar
            dataKey="output_tokens"
            name="Output tokens"
            stackId="tokens"
            fill={COLOURS.output}
            isAnimationActive={false}
          />
        </BarChart>
      </Chart>
      <Chart title="Cost (USD)">
        <LineChart data={data} title="Cost (USD)" accessibilityLayer>
          {axes}
          <Line
            dataKey="cost_usd"
            name="Cost"
            stroke={COLOURS.cost}
            connectNulls
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </Chart>
    </div>
  );
}
