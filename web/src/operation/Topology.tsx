import './i18n.ts';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Background, Controls, MarkerType, Position, ReactFlow, ReactFlowProvider, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Box, Card, Flex, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { callRoute, messageOf } from '../api/client.ts';
import { SelectInput } from '../ui/widgets.tsx';

const TOPOLOGY = 'topology';
const ALL = '*';
const ROW = 70;
const statusColours = { online: '#30A46C', offline: '#8B8D98' } as const;
type DeviceRow = Awaited<ReturnType<typeof callRoute<'device.list'>>>['rows'][number];

const nodeOf = (d: DeviceRow, x: number, y: number, gateway: boolean): Node => ({
  id: d.id,
  position: { x, y },
  data: { label: `${d.name} (${d.sn})` },
  sourcePosition: Position.Right,
  targetPosition: Position.Left,
  draggable: false,
  connectable: false,
  style: {
    width: gateway ? 220 : 200,
    fontWeight: gateway ? 700 : 400,
    border: `2px solid ${statusColours[d.status]}`,
    background: gateway ? '#EEF3FE' : '#FFFFFF',
  },
});

/**
 * The gateways and their sub-devices as a graph (issue 20 topology): each gateway on the left, a link to each of its
 * sub-devices, every node edged in its status colour; refreshed every 15 seconds.
 */
export function Topology() {
  const { t } = useTranslation();
  const [gatewayId, setGatewayId] = useState(ALL);
  const gateways = useQuery({
    queryKey: [TOPOLOGY, 'gateways'],
    queryFn: async () =>
      (await callRoute('device.list', { query: { nodeType: 'gateway', pageSize: 100, sort: 'name', order: 'asc' } })).rows,
    refetchInterval: 15_000,
  });
  const subDevices = useQuery({
    queryKey: [TOPOLOGY, 'subDevices', gatewayId],
    queryFn: async () =>
      (
        await callRoute('device.list', {
          query: { nodeType: 'subDevice', pageSize: 500, sort: 'name', order: 'asc', ...(gatewayId === ALL ? {} : { gatewayId }) },
        })
      ).rows,
    refetchInterval: 15_000,
  });
  const graph = useMemo(() => {
    const nodes: Node[] = [];
    const edges: Edge[] = [];
    let row = 0;
    for (const g of (gateways.data ?? []).filter((x) => gatewayId === ALL || x.id === gatewayId)) {
      const children = (subDevices.data ?? []).filter((s) => s.gatewayId === g.id);
      const top = row;
      children.forEach((c, i) => {
        nodes.push(nodeOf(c, 360, (top + i) * ROW, false));
        edges.push({
          id: `${g.id}-${c.id}`,
          source: g.id,
          target: c.id,
          markerEnd: { type: MarkerType.ArrowClosed },
          animated: c.status === 'online',
        });
      });
      nodes.push(nodeOf(g, 0, (top + Math.max(0, children.length - 1) / 2) * ROW, true));
      row += Math.max(1, children.length) + 0.5;
    }
    return { nodes, edges };
  }, [gateways.data, subDevices.data, gatewayId]);
  const failed = gateways.error ?? subDevices.error;

  return (
    <Flex direction="column" gap="3" data-testid="topology">
      <Flex gap="3" align="center">
        <Box width="260px">
          <SelectInput
            name={t('topology.gateway')}
            value={gatewayId}
            onChange={setGatewayId}
            options={[
              { value: ALL, label: t('topology.allGateways') },
              ...(gateways.data ?? []).map((g) => ({ value: g.id, label: `${g.name} (${g.sn})` })),
            ]}
          />
        </Box>
        <Text size="1" color="gray">
          {t('topology.hint')}
        </Text>
      </Flex>
      {failed ? (
        <Text color="red" role="alert">
          {messageOf(failed)}
        </Text>
      ) : !gateways.data || !subDevices.data ? (
        <Text color="gray">{t('common.loading')}</Text>
      ) : graph.nodes.length === 0 ? (
        <Card data-testid="topology-empty">
          <Text as="div" weight="bold">
            {t('topology.empty')}
          </Text>
          <Text as="div" size="2" color="gray">
            {t('topology.emptyHint')}
          </Text>
        </Card>
      ) : (
        <Box
          style={{ height: 'calc(100vh - 280px)', minHeight: 420, border: '1px solid var(--gray-6)', borderRadius: 6 }}
          data-count={graph.nodes.length}
          data-testid="topology-graph"
        >
          <ReactFlowProvider>
            {/* Uncontrolled, made afresh when a device or its status changes: the canvas measures its nodes itself. */}
            <ReactFlow
              key={graph.nodes.map((n) => `${n.id}:${String(n.style?.border)}`).join(',')}
              defaultNodes={graph.nodes}
              defaultEdges={graph.edges}
              nodesConnectable={false}
              elementsSelectable={false}
              fitView
              fitViewOptions={{ maxZoom: 1 }}
            >
              <Background />
              <Controls showInteractive={false} />
            </ReactFlow>
          </ReactFlowProvider>
        </Box>
      )}
    </Flex>
  );
}
