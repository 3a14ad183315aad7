// pores.csv, throats.csv, network.json and network.vtp (see network_writers.hpp).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/outputs.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/text_output.hpp"

namespace gp::pnm {
namespace {

void write_csv(const std::string& path, const std::vector<Property>& props, std::size_t count) {
  write_atomically(path, [&](const std::string& temp) {
    TextFile out(temp, path);
    bool first = true;
    for (const Property& p : props)
      for (int c = 0; c < p.components; ++c) {
        if (!first) out << ',';
        first = false;
        out << p.name;
        if (p.components > 1) out << '[' << std::to_string(c) << ']';
      }
    out << '\n';
    for (std::size_t i = 0; i < count; ++i) {
      first = true;
      for (const Property& p : props)
        for (int c = 0; c < p.components; ++c) {
          if (!first) out << ',';
          first = false;
          const double v = p.at(i, c);
          switch (p.kind) {
            case PropertyKind::real: out.real(v); break;
            case PropertyKind::integer: out.integer((long long)v); break;
            case PropertyKind::boolean: out << (v != 0 ? "True" : "False"); break;
          }
        }
      out << '\n';
    }
    out.close();
  });
}

void json_value(TextFile& out, const Property& p, double v) {
  switch (p.kind) {
    case PropertyKind::real:
      if (std::isfinite(v))
        out.real(v);
      else
        out << "null";
      break;
    case PropertyKind::integer: out.integer((long long)v); break;
    case PropertyKind::boolean: out << (v != 0 ? "true" : "false"); break;
  }
}

void json_property(TextFile& out, const Property& p, std::size_t count) {
  out << ",\n\"" << p.name << "\": [";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out << ',';
    if (p.components == 1) {
      json_value(out, p, p.at(i));
    } else {
      out << '[';
      for (int c = 0; c < p.components; ++c) {
        if (c > 0) out << ',';
        json_value(out, p, p.at(i, c));
      }
      out << ']';
    }
  }
  out << ']';
}

void vtk_array(TextFile& out, const Property& p, std::size_t count, std::size_t leading_zeros) {
  const char* type = p.kind == PropertyKind::real ? "Float64" : p.kind == PropertyKind::integer ? "Int64" : "UInt8";
  out << "        <DataArray type=\"" << type << "\" Name=\"" << p.name << "\" NumberOfComponents=\""
      << std::to_string(p.components) << "\" format=\"ascii\">\n";
  for (std::size_t i = 0; i < leading_zeros * std::size_t(p.components); ++i) out << (i % 16 == 15 ? "0\n" : "0 ");
  if (leading_zeros > 0) out << '\n';
  for (std::size_t i = 0; i < count; ++i) {
    for (int c = 0; c < p.components; ++c) {
      const double v = p.at(i, c);
      if (p.kind == PropertyKind::real)
        out.real(std::isfinite(v) ? v : 0.0);  // VTK's ASCII parser reads no nan/inf
      else
        out.integer((long long)v);
      out << ' ';
    }
    if (i % 8 == 7 || i + 1 == count) out << '\n';
  }
  out << "        </DataArray>\n";
}

void vtk_index_array(TextFile& out, const char* name, std::size_t n, const std::function<long long(std::size_t)>& value) {
  out << "        <DataArray type=\"Int64\" Name=\"" << name << "\" format=\"ascii\">\n";
  for (std::size_t i = 0; i < n; ++i) {
    out.integer(value(i));
    out << (i % 16 == 15 || i + 1 == n ? '\n' : ' ');
  }
  out << "        </DataArray>\n";
}

}  // namespace

void write_pores_csv(const std::string& path, const PoreNetwork& network) { write_csv(path, network.pores, network.pore_count); }

void write_throats_csv(const std::string& path, const PoreNetwork& network) {
  write_csv(path, network.throats, network.throat_count);
}

void write_network_json(const std::string& path, const PoreNetwork& net) {
  write_atomically(path, [&](const std::string& temp) {
    TextFile out(temp, path);
    const NetworkGeometry& g = net.geometry;
    out << "{\n\"network\": {\"pores\": ";
    out.integer((long long)net.pore_count) << ", \"throats\": ";
    out.integer((long long)net.throat_count) << ", \"shape\": [";
    out.integer(g.nx) << ", ";
    out.integer(g.ny) << ", ";
    out.integer(g.nz) << "], \"spacing\": [";
    out.real(g.spacing.x) << ", ";
    out.real(g.spacing.y) << ", ";
    out.real(g.spacing.z) << "], \"origin\": [";
    out.real(g.origin[0]) << ", ";
    out.real(g.origin[1]) << ", ";
    out.real(g.origin[2]) << "], \"length_unit\": \"" << g.length_unit << "\"},\n\"units\": {";
    bool first = true;
    for (const auto* props : {&net.pores, &net.throats})
      for (const Property& p : *props) {
        out << (first ? "\"" : ", \"") << p.name << "\": \"" << unit_of(g.length_unit, p.length_power) << '"';
        first = false;
      }
    out << '}';
    for (const Property& p : net.pores) json_property(out, p, net.pore_count);
    for (const Property& p : net.throats) json_property(out, p, net.throat_count);
    out << "\n}\n";
    out.close();
  });
}

void write_network_vtp(const std::string& path, const PoreNetwork& net) {
  write_atomically(path, [&](const std::string& temp) {
    TextFile out(temp, path);
    const std::size_t np = net.pore_count, nt = net.throat_count;
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        << "  <PolyData>\n"
        << "    <Piece NumberOfPoints=\"" << std::to_string(np) << "\" NumberOfVerts=\"" << std::to_string(np)
        << "\" NumberOfLines=\"" << std::to_string(nt) << "\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n";
    out << "      <PointData>\n";
    for (const Property& p : net.pores) vtk_array(out, p, np, 0);
    out << "      </PointData>\n      <CellData>\n";
    Property is_throat;
    is_throat.name = "is_throat";
    is_throat.kind = PropertyKind::integer;
    is_throat.values.assign(nt, 1.0);
    vtk_array(out, is_throat, nt, np);
    for (const Property& p : net.throats) vtk_array(out, p, nt, np);
    out << "      </CellData>\n      <Points>\n";
    vtk_array(out, net.pore("pore.coords"), np, 0);
    out << "      </Points>\n      <Verts>\n";
    vtk_index_array(out, "connectivity", np, [](std::size_t i) { return (long long)i; });
    vtk_index_array(out, "offsets", np, [](std::size_t i) { return (long long)i + 1; });
    out << "      </Verts>\n      <Lines>\n";
    const Property& conns = net.throat("throat.conns");
    vtk_index_array(out, "connectivity", 2 * nt, [&](std::size_t i) { return (long long)conns.values[i]; });
    vtk_index_array(out, "offsets", nt, [](std::size_t i) { return 2 * (long long)i + 2; });
    out << "      </Lines>\n    </Piece>\n  </PolyData>\n</VTKFile>\n";
    out.close();
  });
}

}  // namespace gp::pnm
