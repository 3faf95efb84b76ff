import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

// Only what the report draws, so the finaliser's bundle carries a fraction of ECharts.
echarts.use([BarChart, GridComponent, LegendComponent, SVGRenderer]);

/** One bar of a chart: its label, value, the text on it and its colour. */
export interface ChartBar {
  readonly label: string;
  readonly value: number;
  readonly text: string;
  readonly color: string;
}

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const TEXT_COLOR = '#3b4252';
const WIDTH = 560;

/** Renders a chart to an SVG string, server-side: no script runs when the page is read. */
function renderSvg(option: echarts.EChartsCoreOption, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: FONT, color: TEXT_COLOR }, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** Vertical bars, one per category (score and probability bands). */
export function columnChart(bars: readonly ChartBar[]): string {
  return renderSvg(
    {
      grid: { left: 8, right: 8, top: 28, bottom: 8 },
      xAxis: {
        type: 'category',
        data: bars.map((bar) => bar.label),
        axisTick: { show: false },
        axisLabel: { color: TEXT_COLOR, fontSize: 13, interval: 0 },
      },
      yAxis: { type: 'value', splitNumber: 3, axisLabel: { color: '#6b7280', fontSize: 12 } },
      series: [
        {
          type: 'bar',
          barMaxWidth: 64,
          data: bars.map((bar) => ({
            value: bar.value,
            itemStyle: { color: bar.color, borderRadius: [3, 3, 0, 0] },
          })),
          label: {
            show: true,
            position: 'top',
            fontSize: 13,
            color: TEXT_COLOR,
            formatter: (params: { dataIndex: number }) => bars[params.dataIndex]?.text ?? '',
          },
        },
      ],
    },
    260,
  );
}

/** Horizontal bars, longest labels on the left (change kinds). */
export function barChart(bars: readonly ChartBar[]): string {
  const reversed = [...bars].reverse(); // ECharts draws the first category at the bottom
  return renderSvg(
    {
      grid: { left: 8, right: 48, top: 8, bottom: 8 },
      yAxis: {
        type: 'category',
        data: reversed.map((bar) => bar.label),
        axisTick: { show: false },
        axisLabel: { color: TEXT_COLOR, fontSize: 13 },
      },
      xAxis: { type: 'value', show: false },
      series: [
        {
          type: 'bar',
          barMaxWidth: 22,
          data: reversed.map((bar) => ({
            value: bar.value,
            itemStyle: { color: bar.color, borderRadius: [0, 3, 3, 0] },
          })),
          label: {
            show: true,
            position: 'right',
            fontSize: 13,
            color: TEXT_COLOR,
            formatter: (params: { dataIndex: number }) => reversed[params.dataIndex]?.text ?? '',
          },
        },
      ],
    },
    Math.max(120, 34 * bars.length + 16),
  );
}

/** A series of a grouped chart: one colour, one value per category. */
export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  readonly values: readonly number[];
  readonly texts: readonly string[];
}

/** Groups of vertical bars with a legend (the risk mix: each restriction, person against company). */
export function groupedColumnChart(categories: readonly string[], series: readonly ChartSeries[]): string {
  return renderSvg(
    {
      legend: { top: 0, textStyle: { fontSize: 13, color: TEXT_COLOR }, itemWidth: 14, itemHeight: 10 },
      grid: { left: 8, right: 8, top: 40, bottom: 8 },
      xAxis: {
        type: 'category',
        data: [...categories],
        axisTick: { show: false },
        axisLabel: { color: TEXT_COLOR, fontSize: 13, interval: 0 },
      },
      yAxis: {
        type: 'value',
        splitNumber: 3,
        axisLabel: {
          color: '#6b7280',
          fontSize: 12,
          formatter: (value: number) => `${Math.round(value * 100)}%`,
        },
      },
      series: series.map((entry) => ({
        type: 'bar',
        name: entry.name,
        barMaxWidth: 48,
        itemStyle: { color: entry.color, borderRadius: [3, 3, 0, 0] },
        data: [...entry.values],
        label: {
          show: true,
          position: 'top',
          fontSize: 12,
          color: TEXT_COLOR,
          formatter: (params: { dataIndex: number }) => entry.texts[params.dataIndex] ?? '',
        },
      })),
    },
    280,
  );
}
