// The score distributions, drawn with recharts: a histogram per scorer, a bar series per version. Loaded
// lazily (score-distributions.tsx), as the usage charts are, to keep recharts out of the first load.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { type HistogramRow, seriesKey } from './score-histogram';

const COLOURS = ['#1f4e79', '#a4161a', '#2b6a3f', '#7a4b00', '#5b2a86', '#00616b', '#6b4226', '#3d3d3d'];

export type ScorerHistogram = { scorer: string; rows: HistogramRow[] };

export default function ScoreCharts(props: { histograms: ScorerHistogram[]; versions: number[] }) {
  return (
    <div className="usage-charts">
      {props.histograms.map(({ scorer, rows }) => (
        <figure key={scorer} className="usage-chart">
          <figcaption>Scores of {scorer}</figcaption>
          <ResponsiveContainer width="100%" height={200}>
            <BarChart data={rows} title={`Scores of ${scorer}`} accessibilityLayer>
              <CartesianGrid stroke="#e1e6eb" vertical={false} />
              <XAxis dataKey="bin" tick={{ fontSize: 11 }} />
              <YAxis tick={{ fontSize: 11 }} width={40} allowDecimals={false} />
              <Tooltip />
              <Legend />
              {props.versions.map((version, index) => (
                <Bar
                  key={version}
                  dataKey={seriesKey(version)}
                  name={`v${version}`}
                  fill={COLOURS[index % COLOURS.length]}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </figure>
      ))}
    </div>
  );
}
