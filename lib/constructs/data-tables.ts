import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  type KeyAttribute,
  type TableDefinition,
  type TableName,
  tableDefinitions,
} from '../../functions/adapters/dynamodb/table-definitions';
import type { TableAccess } from '../../functions/routes';

/** The shared table definitions as typed entries. */
export function tableEntries(): [TableName, TableDefinition][] {
  return Object.entries(tableDefinitions) as [TableName, TableDefinition][];
}

function attribute(key: KeyAttribute): dynamodb.Attribute {
  return {
    name: key.name,
    type: key.type === 'N' ? dynamodb.AttributeType.NUMBER : dynamodb.AttributeType.STRING,
  };
}

/**
 * Every DynamoDB table of the service, created from the shared table definitions:
 * on-demand, point-in-time recovery, TTL where defined, indexes projecting all attributes,
 * retained when the stack is deleted.
 */
export class DataTables extends Construct {
  readonly tables: Record<TableName, dynamodb.Table>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const tables: Partial<Record<TableName, dynamodb.Table>> = {};
    for (const [name, definition] of tableEntries()) {
      const table = new dynamodb.Table(this, definition.id, {
        partitionKey: attribute(definition.partitionKey),
        sortKey: definition.sortKey ? attribute(definition.sortKey) : undefined,
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        timeToLiveAttribute: definition.timeToLiveAttribute,
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      for (const index of definition.globalIndexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
          projectionType: dynamodb.ProjectionType.ALL,
        });
      }
      tables[name] = table;
    }
    this.tables = tables as Record<TableName, dynamodb.Table>;
  }

  /**
   * Grants exactly these item actions on one table by exact ARN; Query also on each of the
   * table's indexes (no `index/*` wildcard, no Scan, no DescribeTable).
   */
  grant(grantee: iam.IGrantable, name: TableName, access: TableAccess): void {
    const table = this.tables[name];
    const definition: TableDefinition = tableDefinitions[name];
    const itemActions = access.filter((action) => action !== 'Query');
    if (itemActions.length > 0) {
      iam.Grant.addToPrincipal({
        grantee,
        actions: itemActions.map((action) => `dynamodb:${action}`),
        resourceArns: [table.tableArn],
      });
    }
    if (access.includes('Query')) {
      const indexArns = (definition.globalIndexes ?? []).map(
        (index) => `${table.tableArn}/index/${index.indexName}`,
      );
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: [table.tableArn, ...indexArns],
      });
    }
  }
}
