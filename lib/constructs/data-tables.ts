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

const READ_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];
const WRITE_ACTIONS = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

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
   * Grants read or read-write item access on one table and on each of its indexes by exact
   * ARN (no `index/*` wildcard).
   */
  grant(grantee: iam.IGrantable, name: TableName, access: TableAccess): void {
    const table = this.tables[name];
    const definition: TableDefinition = tableDefinitions[name];
    const indexArns = (definition.globalIndexes ?? []).map(
      (index) => `${table.tableArn}/index/${index.indexName}`,
    );
    iam.Grant.addToPrincipal({
      grantee,
      actions: access === 'readWrite' ? [...READ_ACTIONS, ...WRITE_ACTIONS] : READ_ACTIONS,
      resourceArns: [table.tableArn, ...indexArns],
    });
  }
}
